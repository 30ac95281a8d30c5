CREATE TABLE `deployments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` text NOT NULL,
	`config` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `deployments_app` ON `deployments` (`app_id`,`id`);--> statement-breakpoint
CREATE TABLE `members` (
	`resource_id` text NOT NULL,
	`user_id` text NOT NULL,
	`app_id` text NOT NULL,
	`role` text NOT NULL,
	`state` text NOT NULL,
	`invited_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`resource_id`, `user_id`),
	FOREIGN KEY (`resource_id`) REFERENCES `resources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `members_user` ON `members` (`user_id`,`state`);--> statement-breakpoint
CREATE INDEX `members_pending_invites` ON `members` (`app_id`,`invited_by`) WHERE state = 'invited';--> statement-breakpoint
CREATE TABLE `resource_links` (
	`resource_id` text NOT NULL,
	`table_name` text NOT NULL,
	`row_id` text NOT NULL,
	`contributor_id` text NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`data` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`resource_id`, `table_name`, `row_id`),
	FOREIGN KEY (`resource_id`) REFERENCES `resources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `resource_links_contributor` ON `resource_links` (`resource_id`,`contributor_id`);--> statement-breakpoint
CREATE TABLE `resources` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`app_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`name_fold` text NOT NULL,
	`visibility` text NOT NULL,
	`discoverable` integer NOT NULL,
	`owner_id` text NOT NULL,
	`slug` text,
	`member_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resources_id_unique` ON `resources` (`id`);--> statement-breakpoint
CREATE INDEX `resources_browse` ON `resources` (`app_id`,`discoverable`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `resources_browse_type` ON `resources` (`app_id`,`type`,`discoverable`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `resources_slug` ON `resources` (`app_id`,`type`,`slug`) WHERE slug IS NOT NULL;--> statement-breakpoint
CREATE TABLE `retained_rows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`resource_id` text NOT NULL,
	`table_name` text NOT NULL,
	`row_id` text NOT NULL,
	`from_user_id` text NOT NULL,
	`data` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`resource_id`) REFERENCES `resources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `retained_rows_resource` ON `retained_rows` (`resource_id`);