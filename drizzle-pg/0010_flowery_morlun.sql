CREATE TABLE "logout_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "provider_sid" text;--> statement-breakpoint
CREATE INDEX "sessions_provider_sid" ON "sessions" USING btree ("provider_sid");