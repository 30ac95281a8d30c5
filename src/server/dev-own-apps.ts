/**
 * The developer's own apps under `gateway dev`: the apps file (GATEWAY_CONFIG) and `--app <origin>`,
 * registered beside dev's own app at the development provider and at the gateway. The rule is that dev
 * stays on this machine: the development provider signs in anyone who types a name, so a code it issues
 * goes only to a loopback address (http://localhost, 127.0.0.0/8, [::1]) and only loopback pages get
 * CORS. A redirect URI or origin elsewhere in the apps file is left out and named at start-up (never
 * silently); a client left with no redirect URI is left out and named too. An `--app` that is not a
 * loopback http(s) origin is refused (exit 2): it is a flag, and the fix is to type it again.
 *
 * `--app http://localhost:3000` adds the app `local-3000` whose one public client is `local-3000`, with
 * the redirect URIs `http://localhost:3000/` (the SDK's default: the page itself) and
 * `http://localhost:3000/callback`, the origin being that address, and the sample types dev's own app has.
 */
import type { AppDef, AppsFile } from "./apps/model.ts";
import { AppsFileError, DEFAULT_APPS, parseAppsFile, webOrigin } from "./apps/registry.ts";
import { isLoopbackHost } from "./config.ts";

/** A refused `--app` value; the command prints it as one line and exits 2. */
export class DevAppError extends Error {}

/** The app (and its one client) `--app <origin>` adds: both named `local-<port>`. */
export function appFromOrigin(raw: string): AppDef {
  const origin = webOrigin(raw);
  if (origin === undefined || raw.replace(/\/$/, "") !== origin) {
    const hint = origin && !new URL(raw).pathname.replace(/^\/$/, "") ? `; write it as "${origin}"` : "";
    throw new DevAppError(
      `--app must be an http(s) origin like http://localhost:3000 (scheme, host and port, no path), got "${raw}"${hint}`,
    );
  }
  const url = new URL(origin);
  if (!isLoopback(url))
    throw new DevAppError(
      `--app must be a loopback origin (localhost, 127.0.0.0/8 or [::1]): gateway dev signs in anyone and stays on this machine, got "${raw}"`,
    );
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const id = `local-${port}`;
  return {
    id,
    clients: [{ clientId: id, redirectUris: [`${origin}/`, `${origin}/callback`] }],
    types: DEFAULT_APPS.apps[0]!.types,
  };
}

function isLoopback(url: URL): boolean {
  return isLoopbackHost(url.hostname.replace(/^\[(.*)\]$/, "$1"));
}

function isLoopbackWeb(uri: string): boolean {
  return webOrigin(uri) !== undefined && isLoopback(new URL(uri));
}

/**
 * The apps file as dev registers it: every redirect URI and origin that is not a loopback http(s)
 * address left out, and a client left with no redirect URI left out; `notices` names each one.
 */
export function keepLoopback(file: AppsFile, source: string): { file: AppsFile; notices: string[] } {
  const notices: string[] = [];
  const apps = file.apps.map((app) => ({
    ...app,
    clients: app.clients.flatMap((client) => {
      const dropped = [...client.redirectUris, ...(client.origins ?? [])].filter((u) => !isLoopbackWeb(u));
      if (dropped.length > 0)
        notices.push(
          `${source}: client "${client.clientId}": left out ${dropped.map((u) => `"${u}"`).join(", ")} (gateway dev registers loopback http(s) addresses only)`,
        );
      const redirectUris = client.redirectUris.filter(isLoopbackWeb);
      if (redirectUris.length === 0) {
        notices.push(`${source}: client "${client.clientId}" is not registered: no loopback redirect URI`);
        return [];
      }
      const origins = client.origins?.filter(isLoopbackWeb);
      return [{ ...client, redirectUris, ...(origins ? { origins } : {}) }];
    }),
  }));
  return { file: { apps }, notices };
}

/**
 * Dev's own apps followed by the developer's: an app or client id dev uses for itself is refused
 * (naming it), then the whole is checked by the apps file's rules (an id given twice is refused).
 */
export function withOwnApps(devFile: AppsFile, own: AppDef[], source: string): AppsFile {
  const reserved = new Set(devFile.apps.flatMap((app) => [app.id, ...app.clients.map((c) => c.clientId)]));
  for (const app of own) {
    for (const id of [app.id, ...app.clients.map((c) => c.clientId)]) {
      if (reserved.has(id))
        throw new AppsFileError(
          `${source}: "${id}" is one of gateway dev's own app and client ids; rename it`,
        );
    }
  }
  return parseAppsFile({ apps: [...devFile.apps, ...own] }, source);
}
