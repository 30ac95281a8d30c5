ALTER TABLE `resources` ADD `owner_kind` text DEFAULT 'user' NOT NULL;
--> statement-breakpoint
UPDATE `resources` SET `owner_kind` = 'app' WHERE `slug` IS NOT NULL AND `owner_id` = 'app:' || `app_id`;
