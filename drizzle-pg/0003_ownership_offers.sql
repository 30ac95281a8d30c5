CREATE TABLE "ownership_offers" (
	"resource_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"offered_by" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ownership_offers" ADD CONSTRAINT "ownership_offers_resource_id_resources_id_fk" FOREIGN KEY ("resource_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ownership_offers_user" ON "ownership_offers" USING btree ("user_id");