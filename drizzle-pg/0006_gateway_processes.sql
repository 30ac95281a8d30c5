CREATE TABLE "gateway_processes" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" bigint NOT NULL,
	"key_id" text NOT NULL,
	"started_at" bigint NOT NULL,
	"seen_at" bigint NOT NULL
);
