ALTER TABLE `sessions` ADD `refresh_sealed` text;--> statement-breakpoint
CREATE INDEX `members_pending` ON `members` (`created_at`) WHERE state <> 'active';