/**
 * Which apps and OAuth clients the gateway knows. Without GATEWAY_CONFIG there is one built-in app,
 * `default`, that accepts any client id (a public client with no registered redirect URIs and no
 * CORS origins: same-origin use only). With a file, only its clients are accepted at /auth/authorize
 * and /auth/token, their redirect URIs are enforced, and their origins are the CORS allow-list.
 */
import { Value } from "@sinclair/typebox/value";
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
      for (const uri of [...client.redirectUris, ...(client.origins ?? [])]) {
        if (!URL.canParse(uri)) throw new AppsFileError(`${source}: "${uri}" is not an absolute URL`);
      }
    }
  }
  return json;
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

export class AppRegistry {
  private readonly byClient = new Map<string, ClientLookup>();
  private readonly origins = new Set<string>();
  private readonly openApp: AppDef | undefined;

  constructor(readonly file: AppsFile) {
    for (const app of file.apps) {
      for (const client of app.clients) {
        this.byClient.set(client.clientId, { app, client });
        for (const uri of [...client.redirectUris, ...(client.origins ?? [])])
          this.origins.add(new URL(uri).origin);
      }
    }
    // The built-in default app (no clients listed) accepts any client id.
    this.openApp = file.apps.find((app) => app.clients.length === 0);
  }

  /** The app and client for a client id, or undefined when the client is not accepted. */
  lookupClient(clientId: string): ClientLookup | undefined {
    return (
      this.byClient.get(clientId) ?? (this.openApp ? { app: this.openApp, client: undefined } : undefined)
    );
  }

  /** The caller's app: its client's app, or the first app when the client is unknown (userinfo fallback). */
  appFor(clientId: string | undefined): AppDef {
    const found = clientId ? this.lookupClient(clientId) : undefined;
    return found?.app ?? this.file.apps[0]!;
  }

  isAllowedOrigin(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** True when the redirect URI is acceptable for the client (exact string match, as Hydra compares). */
  isRegisteredRedirect(lookup: ClientLookup, redirectUri: string): boolean {
    return lookup.client === undefined || lookup.client.redirectUris.includes(redirectUri);
  }
}
