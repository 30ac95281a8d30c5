CREATE TABLE "budget_shares" (
	"app_id" text NOT NULL,
	"window_start" bigint NOT NULL,
	"user_id" text NOT NULL,
	"reserved" bigint NOT NULL,
	CONSTRAINT "budget_shares_app_id_window_start_user_id_pk" PRIMARY KEY("app_id","window_start","user_id")
);
