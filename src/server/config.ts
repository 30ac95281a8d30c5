/**
 * The only reader of the environment. Everything is validated once at start-up;
 * a bad value throws a ConfigError whose message is one line naming the variable, and `main.ts`
 * prints it and exits 1. Nothing else in the program reads `process.env` (`serve --workers` copies it
 * to its workers, adding the two variables only it sets: GATEWAY_REUSE_PORT and GATEWAY_WORKER).
 */
import { isPseudonymKey } from "./auth/keyring.ts";
import type { Variable } from "./config-variables.ts";
import { TrustedProxies } from "./http/trusted-proxies.ts";

export type SameSite = "lax" | "strict" | "none";

export interface Config {
  port: number;
  host: string;
  adminPort: number;
  adminHost: string;
  adminToken: string | undefined;
  /** PostgreSQL (`postgres://…`) for replicas; when set, DATABASE_PATH is not used. */
  databaseUrl: string | undefined;
  /** Several processes share the ports (`serve --workers N` sets it for its workers). */
  reusePort: boolean;
  /** This process's number among `serve --workers N`'s workers (named in /readyz and the logs). */
  worker: number | undefined;
  databasePath: string;
  oidcIssuer: string | undefined;
  idpAdminUrl: string | undefined;
  idpAdminApiKey: string | undefined;
  kratosPublicUrl: string | undefined;
  /** Kratos' admin API: an account deletion deletes the identity there too (best effort). */
  kratosAdminUrl: string | undefined;
  /** RFC 7009 revocation endpoint, over what the provider's metadata says. */
  idpRevocationUrl: string | undefined;
  /** RFC 7662 introspection endpoint, over what the provider's metadata says. */
  idpIntrospectionUrl: string | undefined;
  /** Client credentials for introspection (client_secret_basic), next to or instead of IDP_ADMIN_API_KEY. */
  idpIntrospectionClient: { clientId: string; clientSecret: string } | undefined;
  /** `hydra`: the provider has Hydra's consent admin API; `none`: the consent endpoints answer 501. */
  idpConsentApi: "hydra" | "none";
  welcomeCreditMicros: number;
  cookieSecure: boolean;
  cookieSameSite: SameSite;
  /** The secret that seals session cookies and the refresh tokens kept on session rows. */
  sessionSecret: string | undefined;
  /** Older secrets that still unseal (a rotation in progress), newest first. */
  sessionSecretPrevious: string[];
  /** Pseudonym keys of secrets dropped from SESSION_SECRET_PREVIOUS: they recognise deleted accounts only. */
  sessionPseudonymKeys: string[];
  /** Where the sealing keys live when SESSION_SECRET is unset; undefined for an in-memory database. */
  sessionKeyFile: string | undefined;
  gatewayConfigPath: string | undefined;
  /** One JSON access-log line per request (ACCESS_LOG, default true). */
  accessLog: boolean;
  /** On SIGTERM/SIGINT: how long requests in flight may take to finish before they are cut. */
  shutdownDrainSeconds: number;
  /** Reverse proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); undefined: none. */
  trustedProxies: TrustedProxies | undefined;
  /** Absolute session lifetime (30 days). Not an environment variable. */
  sessionLifetimeSeconds: number;
  /** How long a just-rotated refresh token still gets the current session (30 s). Not an environment variable. */
  rotationGraceMs: number;
  /**
   * How long the previous refresh token still gets the current session while no request has presented
   * the current one (a lost refresh answer; 10 minutes). Not an environment variable.
   */
  lostAnswerGraceMs: number;
  /** How long a refresh request waits for the provider before answering 502 (5 s; the call goes on). */
  refreshWaitMs: number;
  /** How long the provider's refresh call may run in all (30 s). */
  refreshCallTimeoutMs: number;
  /** How long a write waits for another process's write lock before answering 503 database_busy (5 s). */
  writeWaitMs: number;
  /** The bound on one provider call, headers and body (5 s when unset). Not an environment variable: tests shorten it. */
  idpTimeoutMs?: number;
  /** The bound on receiving a request body (10 s when unset). Not an environment variable: tests shorten it. */
  bodyTimeoutMs?: number;
  /**
   * `gateway dev` (loopback only, a development provider): refusals may say more about the
   * configuration, e.g. an unregistered redirect URI lists the registered ones. Set only by
   * loadDevConfig, never by an environment variable, so no production instance turns it on by accident.
   */
  development: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`configuration error: ${variable} ${detail}`);
  }
}

type Env = Record<string, string | undefined>;

/** The key file's default place: beside the database (an in-memory database has none). */
function defaultKeyFile(databasePath: string, name = "session.key"): string | undefined {
  if (databasePath === ":memory:") return undefined;
  const slash = databasePath.lastIndexOf("/");
  return `${slash < 0 ? "." : databasePath.slice(0, slash) || "/"}/${name}`;
}

function text(env: Env, name: Variable): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function port(env: Env, name: Variable, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new ConfigError(name, `must be a port number 0-65535, got "${raw}"`);
  return Number(raw);
}

/** A base URL (paths are appended to it): a trailing slash is dropped. */
function url(env: Env, name: Variable): string | undefined {
  return endpoint(env, name)?.replace(/\/+$/, "");
}

/** An endpoint's URL, used exactly as given: "…/revoke_token/" and "…/revoke_token" may differ. */
function endpoint(env: Env, name: Variable): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw;
}

function seconds(env: Env, name: Variable, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,4}(\.\d{1,3})?$/.test(raw))
    throw new ConfigError(name, `must be a number of seconds, got "${raw}"`);
  return Number(raw);
}

function trustedProxies(env: Env): TrustedProxies | undefined {
  const raw = text(env, "TRUSTED_PROXIES");
  if (raw === undefined) return undefined;
  try {
    return TrustedProxies.parse(raw);
  } catch (error) {
    throw new ConfigError(
      "TRUSTED_PROXIES",
      `must be IP addresses or CIDR ranges, comma-separated: ${(error as Error).message}`,
    );
  }
}

function introspectionClient(env: Env): { clientId: string; clientSecret: string } | undefined {
  const clientId = text(env, "IDP_INTROSPECTION_CLIENT_ID");
  const clientSecret = text(env, "IDP_INTROSPECTION_CLIENT_SECRET");
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined)
    throw new ConfigError("IDP_INTROSPECTION_CLIENT_ID", "is needed with IDP_INTROSPECTION_CLIENT_SECRET");
  if (clientSecret === undefined)
    throw new ConfigError("IDP_INTROSPECTION_CLIENT_SECRET", "is needed with IDP_INTROSPECTION_CLIENT_ID");
  return { clientId, clientSecret };
}

/** SESSION_PSEUDONYM_KEYS: with SESSION_SECRET only (a key file keeps its own `pseudonym:` lines). */
function pseudonymKeyList(env: Env, withSecret: boolean): string[] {
  const keys = (text(env, "SESSION_PSEUDONYM_KEYS") ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter(Boolean);
  if (keys.length > 0 && !withSecret)
    throw new ConfigError("SESSION_PSEUDONYM_KEYS", "needs SESSION_SECRET (a key file keeps its own)");
  if (!keys.every(isPseudonymKey))
    throw new ConfigError("SESSION_PSEUDONYM_KEYS", "each key must be 43 base64url characters");
  return keys;
}

function bool(env: Env, name: Variable, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: Variable, values: readonly T[], fallback: T): T {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${values.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

function usdToMicros(env: Env, name: Variable, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback * 1_000_000;
  if (!/^\d+(\.\d{1,6})?$/.test(raw))
    throw new ConfigError(name, `must be a decimal amount >= 0, got "${raw}"`);
  const [whole, frac = ""] = raw.split(".");
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, "0"));
}

export function loadConfig(env: Env = process.env): Config {
  const oidcIssuer = url(env, "OIDC_ISSUER");
  const cookieSecure = bool(env, "COOKIE_SECURE", true);
  const cookieSameSite = oneOf(env, "COOKIE_SAMESITE", ["lax", "strict", "none"] as const, "lax");
  if (cookieSameSite === "none" && !cookieSecure) {
    throw new ConfigError(
      "COOKIE_SAMESITE",
      "none requires COOKIE_SECURE=true (browsers drop SameSite=None without Secure)",
    );
  }
  const sessionSecret = text(env, "SESSION_SECRET");
  if (sessionSecret !== undefined && sessionSecret.length < 32) {
    throw new ConfigError("SESSION_SECRET", "must be at least 32 characters");
  }
  const sessionSecretPrevious = (text(env, "SESSION_SECRET_PREVIOUS") ?? "")
    .split(",")
    .map((secret) => secret.trim())
    .filter(Boolean);
  if (sessionSecretPrevious.length > 0 && sessionSecret === undefined) {
    throw new ConfigError("SESSION_SECRET_PREVIOUS", "needs SESSION_SECRET (the key that seals)");
  }
  if (sessionSecretPrevious.some((secret) => secret.length < 32)) {
    throw new ConfigError("SESSION_SECRET_PREVIOUS", "each secret must be at least 32 characters");
  }
  const sessionPseudonymKeys = pseudonymKeyList(env, sessionSecret !== undefined);
  const databasePath = text(env, "DATABASE_PATH") ?? "./data/gateway.db";
  const databaseUrl = text(env, "DATABASE_URL");
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/./.test(databaseUrl))
    throw new ConfigError("DATABASE_URL", "must be a postgres:// URL");
  // Replicas must seal with the same key: a key file made by each would sign users out on every hop.
  if (databaseUrl !== undefined && sessionSecret === undefined && text(env, "SESSION_KEY_FILE") === undefined)
    throw new ConfigError(
      "SESSION_SECRET",
      "is required with DATABASE_URL (or SESSION_KEY_FILE, the same file on every replica)",
    );
  const listeners = {
    port: port(env, "PORT", 8787),
    host: text(env, "HOST") ?? "127.0.0.1",
    adminPort: port(env, "ADMIN_PORT", 8788),
    adminHost: text(env, "ADMIN_HOST") ?? "127.0.0.1",
  };
  const wildcard = (host: string) => host === "0.0.0.0" || host === "::" || host === "[::]";
  if (
    listeners.port !== 0 &&
    listeners.port === listeners.adminPort &&
    (listeners.host === listeners.adminHost || wildcard(listeners.host) || wildcard(listeners.adminHost))
  )
    throw new ConfigError("ADMIN_PORT", `must differ from PORT (both are ${listeners.port})`);
  return {
    ...listeners,
    adminToken: text(env, "ADMIN_TOKEN"),
    databasePath,
    databaseUrl,
    // Set by `serve --workers N` for its workers, not by an operator.
    reusePort: env.GATEWAY_REUSE_PORT === "1",
    worker: /^\d{1,3}$/.test(env.GATEWAY_WORKER ?? "") ? Number(env.GATEWAY_WORKER) : undefined,
    oidcIssuer,
    idpAdminUrl: url(env, "IDP_ADMIN_URL") ?? oidcIssuer,
    idpAdminApiKey: text(env, "IDP_ADMIN_API_KEY"),
    kratosPublicUrl: url(env, "KRATOS_PUBLIC_URL"),
    kratosAdminUrl: url(env, "KRATOS_ADMIN_URL"),
    idpRevocationUrl: endpoint(env, "IDP_REVOCATION_URL"),
    idpIntrospectionUrl: endpoint(env, "IDP_INTROSPECTION_URL"),
    idpIntrospectionClient: introspectionClient(env),
    idpConsentApi: oneOf(env, "IDP_CONSENT_API", ["hydra", "none"] as const, "hydra"),
    welcomeCreditMicros: usdToMicros(env, "WELCOME_CREDIT_USD", 5),
    cookieSecure,
    cookieSameSite,
    sessionSecret,
    sessionSecretPrevious,
    sessionPseudonymKeys,
    sessionKeyFile: text(env, "SESSION_KEY_FILE") ?? defaultKeyFile(databasePath),
    gatewayConfigPath: text(env, "GATEWAY_CONFIG"),
    shutdownDrainSeconds: seconds(env, "SHUTDOWN_DRAIN_SECONDS", 10),
    accessLog: bool(env, "ACCESS_LOG", true),
    trustedProxies: trustedProxies(env),
    sessionLifetimeSeconds: 30 * 24 * 3600,
    rotationGraceMs: 30_000,
    lostAnswerGraceMs: 10 * 60_000,
    refreshWaitMs: 5000,
    refreshCallTimeoutMs: 30_000,
    writeWaitMs: 5000,
    development: false,
  };
}

const OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const LOOPBACK = new RegExp(`^(localhost|::1|127(\\.${OCTET}){3})$`, "i");

/** 127.0.0.0/8, ::1 or localhost: reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * `gateway dev`: the same validation, with development defaults under whatever the environment sets
 * (plain-http cookies, the database ./data/dev.db and the key file dev-session.key beside it, apart
 * from gateway serve's; `gateway keys --dev` and `gateway token` read the same), plus DEV_IDP_PORT
 * (default 4444), the development identity provider's port, and DEMO_PORT (default 5173), the demo
 * app's. Development mode signs in anyone who types a name, so HOST and ADMIN_HOST must be loopback:
 * anything else is a ConfigError, never a warning. The commands that only read dev's database or talk
 * to its provider (`keys --dev`, `token`) listen on nothing: they take `readDevConfig`, which does not
 * check the listeners (a shell with HOST=0.0.0.0 exported for serve still reads dev's keys).
 */
export function loadDevConfig(defaults: Env = {}): DevConfig {
  const config = readDevConfig(defaults);
  for (const [variable, host] of [
    ["HOST", config.host],
    ["ADMIN_HOST", config.adminHost],
  ] as const) {
    if (!isLoopbackHost(host))
      throw new ConfigError(
        variable,
        `must be a loopback address for gateway dev (127.0.0.0/8, ::1 or localhost), got "${host}"`,
      );
  }
  return config;
}

export type DevConfig = Config & { devIdpPort: number; demoPort: number };

/** gateway dev's configuration, its listeners unchecked: for commands that listen on nothing. */
export function readDevConfig(defaults: Env = {}): DevConfig {
  const env: Env = { COOKIE_SECURE: "false", DATABASE_PATH: "./data/dev.db", ...defaults };
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && value !== "") env[key] = value;
  }
  const loaded = loadConfig(env);
  // Its own key file: one shared with gateway serve's database would let a prune counting the
  // sessions of one database drop a key the other one's sessions need.
  const config = text(env, "SESSION_KEY_FILE")
    ? loaded
    : { ...loaded, sessionKeyFile: defaultKeyFile(loaded.databasePath, "dev-session.key") };
  return {
    ...config,
    development: true,
    devIdpPort: port(env, "DEV_IDP_PORT", 4444),
    demoPort: port(env, "DEMO_PORT", 5173),
  };
}
