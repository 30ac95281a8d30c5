CREATE TABLE "budget_windows" (
	"app_id" text NOT NULL,
	"window_start" bigint NOT NULL,
	"reserved" bigint NOT NULL,
	CONSTRAINT "budget_windows_app_id_window_start_pk" PRIMARY KEY("app_id","window_start")
);
