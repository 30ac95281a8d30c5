CREATE TABLE "deleted_users" (
	"pseudonym" text PRIMARY KEY NOT NULL,
	"deleted_at" bigint NOT NULL,
	"report" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "resource_links" ALTER COLUMN "contributor_id" DROP NOT NULL;