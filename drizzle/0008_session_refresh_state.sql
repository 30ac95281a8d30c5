ALTER TABLE `sessions` ADD `current_cookie` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `refresh_lease_until` integer;