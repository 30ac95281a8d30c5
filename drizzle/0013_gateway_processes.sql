CREATE TABLE `gateway_processes` (
	`id` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`pid` integer NOT NULL,
	`key_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`seen_at` integer NOT NULL
);
