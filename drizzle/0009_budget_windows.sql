CREATE TABLE `budget_windows` (
	`app_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`reserved` integer NOT NULL,
	PRIMARY KEY(`app_id`, `window_start`)
);
