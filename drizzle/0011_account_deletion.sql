CREATE TABLE `deleted_users` (
	`pseudonym` text PRIMARY KEY NOT NULL,
	`deleted_at` integer NOT NULL,
	`report` text NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_resource_links` (
	`resource_id` text NOT NULL,
	`table_name` text NOT NULL,
	`row_id` text NOT NULL,
	`contributor_id` text,
	`hidden` integer DEFAULT false NOT NULL,
	`data` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`resource_id`, `table_name`, `row_id`),
	FOREIGN KEY (`resource_id`) REFERENCES `resources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_resource_links`("resource_id", "table_name", "row_id", "contributor_id", "hidden", "data", "created_at") SELECT "resource_id", "table_name", "row_id", "contributor_id", "hidden", "data", "created_at" FROM `resource_links`;--> statement-breakpoint
DROP TABLE `resource_links`;--> statement-breakpoint
ALTER TABLE `__new_resource_links` RENAME TO `resource_links`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `resource_links_contributor` ON `resource_links` (`resource_id`,`contributor_id`);