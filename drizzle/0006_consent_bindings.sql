CREATE TABLE `consent_bindings` (
	`challenge_hash` text PRIMARY KEY NOT NULL,
	`nonce_hash` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consent_bindings_expiry` ON `consent_bindings` (`expires_at`);