CREATE INDEX `events_user` ON `events` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_actor` ON `events` (`actor`,`id`);--> statement-breakpoint
CREATE INDEX `resource_links_by_contributor` ON `resource_links` (`contributor_id`);