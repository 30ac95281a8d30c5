CREATE INDEX "events_user" ON "events" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "events_actor" ON "events" USING btree ("actor","id");--> statement-breakpoint
CREATE INDEX "resource_links_by_contributor" ON "resource_links" USING btree ("contributor_id");