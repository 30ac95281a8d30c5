CREATE TABLE `budget_shares` (
	`app_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`user_id` text NOT NULL,
	`reserved` integer NOT NULL,
	PRIMARY KEY(`app_id`, `window_start`, `user_id`)
);
