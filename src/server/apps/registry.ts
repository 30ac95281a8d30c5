/**
 * Which apps and OAuth clients the gateway knows. Without GATEWAY_CONFIG there is one built-in app,
 * `default`, that accepts any client id (a public client with no registered redirect URIs and no
 * CORS origins: same-origin use only). With a file, only its clients are accepted at /auth/authorize
 * and /auth/token, their redirect URIs are enforced, and their origins are the CORS allow-list.
 */
import { Value } from "@sinclair/typebox/value";
import { textRefusal } from "../domain/text.ts";
import type { GrantableRole } from "../resources/roles.ts";
import { type AppDef, type AppsFile, AppsFileModel, type ClientDef } from "./model.ts";

export const DEFAULT_APPS: AppsFile = {
  apps: [
    {
      id: "default",
      clients: [],
      types: {
        team: { visibility: "members" },
        project: { visibility: "members" },
        board: { visibility: "unlisted" },
        album: { visibility: "discoverable" },
      },
    },
  ],
};

export class AppsFileError extends Error {}

/**
 * The origin a browser sends for pages at this URI, or undefined: only http(s) URIs have one. A
 * custom-scheme redirect URI (`com.example.app:/cb`) has the opaque origin "null", which must never be
 * allowed (a sandboxed iframe or a data: page sends `Origin: null` too).
 */
export function webOrigin(uri: string): string | undefined {
  if (!URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
}

export function parseAppsFile(json: unknown, source = "apps file"): AppsFile {
  if (!Value.Check(AppsFileModel, json)) {
    const first = Value.Errors(AppsFileModel, json).First();
    throw new AppsFileError(`${source}: ${first?.path || "/"} ${first?.message ?? "is invalid"}`);
  }
  const seen = new Set<string>();
  for (const app of json.apps) {
    if (seen.has(`app:${app.id}`)) throw new AppsFileError(`${source}: app id "${app.id}" appears twice`);
    seen.add(`app:${app.id}`);
    for (const client of app.clients) {
      if (seen.has(client.clientId))
        throw new AppsFileError(`${source}: client "${client.clientId}" appears twice`);
      seen.add(client.clientId);
      for (const uri of client.redirectUris) checkRedirectUri(source, uri);
      for (const uri of client.postLogoutRedirectUris ?? []) checkRedirectUri(source, uri);
      for (const origin of client.origins ?? []) checkOrigin(source, origin);
    }
    checkBuiltInTypes(source, app);
    checkStaticTexts(source, app);
  }
  return json;
}

/** Schemes a browser runs or reads locally: never a place to send an authorization code. */
const REFUSED_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "blob:", "about:"]);

function checkRedirectUri(source: string, uri: string): void {
  if (!URL.canParse(uri)) throw new AppsFileError(`${source}: "${uri}" is not an absolute URL`);
  const { protocol } = new URL(uri);
  if (REFUSED_SCHEMES.has(protocol))
    throw new AppsFileError(`${source}: redirect URI "${uri}" uses the ${protocol} scheme, which is refused`);
}

/**
 * A client's extra CORS origin is an http(s) origin exactly as a browser sends it: scheme, host and
 * port, no path (the allow-list compares strings, so `https://App.example:443` would never match).
 */
function checkOrigin(source: string, origin: string): void {
  const sent = webOrigin(origin);
  if (sent === origin) return;
  const hint = sent && !new URL(origin).pathname.replace(/^\/$/, "") ? `: write it as "${sent}"` : "";
  throw new AppsFileError(
    `${source}: origin "${origin}" must be an http(s) origin like https://app.example.com, with no path${hint}`,
  );
}

/**
 * Types beginning with `_` are the gateway's own (`_app`). None may be a static (a static `_app` would
 * reconcile the app's own resource, making it public) or be declared, except `types._app`, which may
 * only set the role consent joins at and the grant ceiling: `_app` stays reserved and members-only.
 */
function checkBuiltInTypes(source: string, app: AppDef): void {
  for (const item of app.statics ?? []) {
    if (item.type.startsWith("_"))
      throw new AppsFileError(
        `${source}: static "${item.slug}" has the built-in type "${item.type}", which is refused`,
      );
  }
  for (const [name, type] of Object.entries(app.types ?? {})) {
    if (!name.startsWith("_")) continue;
    if (name !== APP_RESOURCE_TYPE)
      throw new AppsFileError(
        `${source}: type "${name}": names beginning with _ are reserved for the gateway`,
      );
    if ((type.visibility !== undefined && type.visibility !== "members") || type.reserved === false)
      throw new AppsFileError(`${source}: type "_app" may set only defaultRole and grantCeiling`);
  }
}

/**
 * A static's type, slug and name are stored as a resource's and drawn in the operator's terminal: they
 * follow the rule of text the API stores (no control or format characters; a name's joiners only inside
 * a word). Named by position, as a schema error is: the refused value is never echoed.
 */
function checkStaticTexts(source: string, app: AppDef): void {
  (app.statics ?? []).forEach((item, i) => {
    for (const field of ["type", "slug", "name"] as const) {
      const why = textRefusal(item[field], field === "name");
      if (why) throw new AppsFileError(`${source}: /statics/${i}/${field} ${why}`);
    }
  });
}

/**
 * Checks one app for a deploy with the apps file's rules, in the company of the other apps in force
 * (so a client id another app owns is refused). Throws AppsFileError; returns the app as validated.
 */
export function validateDeploy(registry: AppRegistry, appId: string, body: unknown): AppDef {
  const others = registry.all.filter((app) => app.id !== appId);
  const file = parseAppsFile({ apps: [...others, body] }, "deploy");
  const app = file.apps[file.apps.length - 1]!;
  if (app.id !== appId) throw new AppsFileError("deploy: /id must equal the app id in the path");
  return app;
}

export async function loadAppsFile(path: string | undefined): Promise<AppsFile> {
  if (!path) return DEFAULT_APPS;
  let json: unknown;
  try {
    json = await Bun.file(path).json();
  } catch (error) {
    throw new AppsFileError(`GATEWAY_CONFIG: cannot read ${path} as JSON (${(error as Error).message})`);
  }
  return parseAppsFile(json, `GATEWAY_CONFIG ${path}`);
}

export interface ClientLookup {
  app: AppDef;
  /** Undefined when the app accepts any client id (the built-in default). */
  client: ClientDef | undefined;
}

export interface TypeConfig {
  defaultRole: GrantableRole;
  visibility: "members" | "unlisted" | "discoverable";
  grantCeiling: GrantableRole;
  reserved: boolean;
}

/** The reserved type of each app's own resource, which consent joins users to. */
export const APP_RESOURCE_TYPE = "_app";

/**
 * The apps in force: from the apps file at start-up, replaced one app at a time by a deploy (validated
 * with `validateDeploy` first, against the same rules as the apps file). Lookups
 * (client → app, CORS origins, type configuration) always read the latest deployment.
 */
export class AppRegistry {
  private readonly apps = new Map<string, AppDef>();
  private byClient = new Map<string, ClientLookup>();
  /** Browser origins per app: the http(s) origins of its clients' redirect URIs and `origins`. */
  private originsByApp = new Map<string, Set<string>>();
  private origins = new Set<string>();

  /** The built-in default app, which accepts any client id; undefined when an apps file is in force. */
  private readonly openApp: AppDef | undefined;

  constructor(file: AppsFile, options: { acceptAnyClient?: boolean } = {}) {
    for (const app of file.apps) this.apps.set(app.id, app);
    this.openApp = options.acceptAnyClient ? file.apps[0] : undefined;
    this.reindex();
  }

  /** True for the built-in default app, which accepts any client id (no apps file). */
  get acceptsAnyClient(): boolean {
    return this.openApp !== undefined;
  }

  get all(): AppDef[] {
    return [...this.apps.values()];
  }

  app(appId: string): AppDef | undefined {
    return this.apps.get(appId);
  }

  /** Installs a new version of one app (a deploy). */
  replaceApp(app: AppDef): void {
    this.apps.set(app.id, app);
    this.reindex();
  }

  private reindex(): void {
    this.byClient = new Map();
    this.originsByApp = new Map();
    this.origins = new Set();
    for (const app of this.apps.values()) {
      const own = new Set<string>();
      for (const client of app.clients) {
        this.byClient.set(client.clientId, { app, client });
        for (const uri of [...client.redirectUris, ...(client.origins ?? [])]) {
          const origin = webOrigin(uri);
          if (origin) own.add(origin);
        }
      }
      this.originsByApp.set(app.id, own);
      for (const origin of own) this.origins.add(origin);
    }
  }

  /** The app and client for a client id, or undefined when the client is not accepted. */
  lookupClient(clientId: string): ClientLookup | undefined {
    const found = this.byClient.get(clientId);
    if (found) return found;
    const open = this.openApp && this.apps.get(this.openApp.id);
    return open ? { app: open, client: undefined } : undefined;
  }

  /** The caller's app: its client's app, or the first app when the client is unknown (userinfo fallback). */
  appFor(clientId: string | undefined): AppDef {
    const found = clientId ? this.lookupClient(clientId) : undefined;
    return found?.app ?? this.apps.values().next().value!;
  }

  /** The client ids of a client's app: its registered ones, and the client itself (the open app lists none). */
  clientIdsOfApp(clientId: string): string[] {
    const ids = this.appFor(clientId).clients.map((client) => client.clientId);
    return ids.includes(clientId) ? ids : [...ids, clientId];
  }

  /** Is this origin registered for some app? (Enough for a preflight, which carries no credential.) */
  isAllowedOrigin(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** Is this origin registered for this app? A credential of the app may be used only from its origins. */
  isOriginOfApp(origin: string, appId: string): boolean {
    return this.originsByApp.get(appId)?.has(origin) ?? false;
  }

  /** True when the redirect URI is acceptable for the client (exact string match, as Hydra compares). */
  isRegisteredRedirect(lookup: ClientLookup, redirectUri: string): boolean {
    return lookup.client === undefined || lookup.client.redirectUris.includes(redirectUri);
  }

  /**
   * A type's configuration with the defaults, or undefined for an unknown type. `_app` is
   * always reserved and members-only; only its defaultRole (and ceiling) may be set by the file.
   */
  typeConfig(appId: string, type: string): TypeConfig | undefined {
    const types = this.apps.get(appId)?.types;
    // Own keys only: "constructor" or "__proto__" are not resource types.
    const declared = types && Object.hasOwn(types, type) ? types[type] : undefined;
    if (type === APP_RESOURCE_TYPE) {
      return {
        defaultRole: declared?.defaultRole ?? "writer",
        visibility: "members",
        grantCeiling: declared?.grantCeiling ?? "admin",
        reserved: true,
      };
    }
    if (!declared) return undefined;
    return {
      defaultRole: declared.defaultRole ?? "writer",
      visibility: declared.visibility ?? "members",
      grantCeiling: declared.grantCeiling ?? "admin",
      reserved: declared.reserved ?? false,
    };
  }

  /** The onMemberRemove policy of a shared table (default `remove`). */
  memberRemovePolicy(appId: string, table: string): "remove" | "hide" | "retain" {
    const tables = this.apps.get(appId)?.sharedTables;
    return (tables && Object.hasOwn(tables, table) ? tables[table]?.onMemberRemove : undefined) ?? "remove";
  }

  /** The onOwnerDelete policy of a shared table (default `remove`). */
  ownerDeletePolicy(appId: string, table: string): "remove" | "tombstone" | "retain" {
    const tables = this.apps.get(appId)?.sharedTables;
    return (tables && Object.hasOwn(tables, table) ? tables[table]?.onOwnerDelete : undefined) ?? "remove";
  }
}
