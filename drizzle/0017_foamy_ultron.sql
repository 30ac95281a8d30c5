CREATE TABLE `logout_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `sessions` ADD `provider_sid` text;--> statement-breakpoint
CREATE INDEX `sessions_provider_sid` ON `sessions` (`provider_sid`);