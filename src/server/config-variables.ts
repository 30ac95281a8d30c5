/**
 * Every environment variable the gateway reads, with its default and meaning: config.ts reads only
 * these names, and `gateway --help` prints this table (`variablesHelp`), so the help cannot drift
 * from the code.
 */
export const VARIABLES = {
  PORT: { default: "8787", meaning: "the public API's port (/auth, /v1, /healthz, /readyz)" },
  HOST: { default: "127.0.0.1", meaning: "the public API's address (0.0.0.0 for every interface)" },
  ADMIN_PORT: {
    default: "8788",
    meaning: "the admin API's port (/admin/v1, /metrics); must differ from PORT",
  },
  ADMIN_HOST: { default: "127.0.0.1", meaning: "the admin API's address" },
  ADMIN_TOKEN: {
    default: "",
    meaning: "the admin API's bearer token; unset, the admin API and /metrics are off",
  },
  DATABASE_PATH: {
    default: "./data/gateway.db",
    meaning: "the SQLite file (created and migrated at start-up)",
  },
  DATABASE_URL: {
    default: "",
    meaning: "postgres://… for replicas sharing one database; replaces DATABASE_PATH",
  },
  OIDC_ISSUER: { default: "", meaning: "the identity provider's issuer URL; unset, sign-in answers 503" },
  IDP_ADMIN_URL: { default: "OIDC_ISSUER", meaning: "Hydra's admin API (consent, introspection)" },
  IDP_ADMIN_API_KEY: { default: "", meaning: "a bearer token for Hydra's admin API" },
  IDP_CONSENT_API: {
    default: "hydra",
    meaning: "hydra: the consent endpoints use Hydra's admin API; none: they answer 501",
  },
  IDP_REVOCATION_URL: {
    default: "from discovery",
    meaning: "the RFC 7009 revocation endpoint, over the provider's metadata",
  },
  IDP_INTROSPECTION_URL: {
    default: "from discovery",
    meaning: "the RFC 7662 introspection endpoint, over the provider's metadata",
  },
  IDP_INTROSPECTION_CLIENT_ID: {
    default: "",
    meaning: "a client that may introspect (client_secret_basic), with the secret below",
  },
  IDP_INTROSPECTION_CLIENT_SECRET: { default: "", meaning: "that client's secret" },
  KRATOS_PUBLIC_URL: { default: "", meaning: "Kratos' public API, for the /auth/kratos/flow proxy" },
  KRATOS_ADMIN_URL: {
    default: "",
    meaning: "Kratos' admin API: deleting an account deletes its identity there too",
  },
  GATEWAY_CONFIG: {
    default: "",
    meaning: "the apps file (JSON: apps, clients, types, statics); unset, any client is one app",
  },
  SESSION_SECRET: {
    default: "a key file",
    meaning: "the secret (32+ characters) sealing cookies and stored refresh tokens",
  },
  SESSION_SECRET_PREVIOUS: {
    default: "",
    meaning: "older secrets that still unseal, comma-separated (a rotation)",
  },
  SESSION_PSEUDONYM_KEYS: {
    default: "",
    meaning: "pseudonym keys of dropped secrets, comma-separated, as gateway keys prune prints them",
  },
  SESSION_KEY_FILE: {
    default: "session.key beside the database (gateway dev: dev-session.key)",
    meaning: "where the sealing keys live when SESSION_SECRET is unset",
  },
  COOKIE_SECURE: {
    default: "true",
    meaning: "Secure cookies with the __Host- prefix; false only for plain-http development",
  },
  COOKIE_SAMESITE: { default: "lax", meaning: "lax, strict or none (none needs COOKIE_SECURE=true)" },
  WELCOME_CREDIT_USD: { default: "5", meaning: "the credit a user gets on first joining an app" },
  SHUTDOWN_DRAIN_SECONDS: {
    default: "10",
    meaning: "on SIGTERM, how long requests in flight may take to finish",
  },
  ACCESS_LOG: { default: "true", meaning: "one JSON line per request on stdout (false turns it off)" },
  TRUSTED_PROXIES: {
    default: "",
    meaning:
      "reverse proxies (addresses, CIDR ranges; comma-separated) whose X-Forwarded-For names the client",
  },
  DEV_IDP_PORT: {
    default: "4444",
    meaning: "gateway dev: the development identity provider's port",
    command: "dev",
  },
  DEMO_PORT: { default: "5173", meaning: "gateway dev: the demo app's port", command: "dev" },
  ADMIN_URL: {
    default: "http://127.0.0.1:8788",
    meaning: "gateway tui: the admin API to watch (with ADMIN_TOKEN)",
    command: "tui",
  },
} satisfies Record<string, { default: string; meaning: string; command?: "dev" | "tui" }>;

export type Variable = keyof typeof VARIABLES;

/** `gateway --help`'s environment section: every variable above, its default and its meaning. */
export function variablesHelp(): string {
  const width = Math.max(...Object.keys(VARIABLES).map((name) => name.length)) + 2;
  const section = (title: string, command: string | undefined) => [
    title,
    ...Object.entries(VARIABLES)
      .filter(([, v]) => ("command" in v ? v.command : undefined) === command)
      .map(
        ([name, v]) => `  ${name.padEnd(width)}${v.meaning}${v.default ? ` (default: ${v.default})` : ""}`,
      ),
  ];
  return [
    ...section(
      "Environment (serve, migrate, keys; dev takes them too, with development defaults):",
      undefined,
    ),
    "",
    ...section("Development (gateway dev):", "dev"),
    "",
    ...section("Operator dashboard (gateway tui):", "tui"),
  ].join("\n");
}
