CREATE TABLE `ownership_offers` (
	`resource_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`offered_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`resource_id`) REFERENCES `resources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ownership_offers_user` ON `ownership_offers` (`user_id`);