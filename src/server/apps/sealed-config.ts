/**
 * Deployments are recorded in the database (so admin deploys survive a restart), but OAuth client
 * secrets are not stored there in clear: each `clientSecret` is kept as `clientSecretSealed`, sealed
 * with the session keyring (whose keys never live in the database). A configuration recorded by an
 * older version with clear secrets still opens, and start-up re-seals such rows in place.
 */
import type { AppDef } from "./model.ts";

export interface SecretSealer {
  sealText(text: string): Promise<string>;
  unsealText(value: string): Promise<string | null>;
}

type StoredClient = AppDef["clients"][number] & { clientSecretSealed?: string };

/** The configuration as recorded: the app with every client secret sealed. */
export async function sealConfig(app: AppDef, sealer: SecretSealer): Promise<string> {
  const clients = await Promise.all(
    app.clients.map(
      async ({ clientSecret, ...client }): Promise<StoredClient> =>
        clientSecret === undefined
          ? client
          : { ...client, clientSecretSealed: await sealer.sealText(clientSecret) },
    ),
  );
  return JSON.stringify({ ...app, clients });
}

/** The app a recorded configuration describes; a secret no key opens is left out (and reported). */
export async function openConfig(
  config: string,
  sealer: SecretSealer,
): Promise<{ app: AppDef; unopened: string[] }> {
  const stored = JSON.parse(config) as Omit<AppDef, "clients"> & { clients: StoredClient[] };
  const unopened: string[] = [];
  const clients = await Promise.all(
    stored.clients.map(async ({ clientSecretSealed, ...client }) => {
      if (clientSecretSealed === undefined) return client;
      const clientSecret = await sealer.unsealText(clientSecretSealed);
      if (clientSecret === null) {
        unopened.push(client.clientId);
        return client;
      }
      return { ...client, clientSecret };
    }),
  );
  return { app: { ...stored, clients }, unopened };
}

/**
 * The ids of the keys a recorded configuration's secrets are sealed with; `null` stands for a secret in
 * clear (an older version's row). Start-up re-seals rows that name anything but the current key.
 */
export function sealingKeysOf(
  config: string,
  keyIdOf: (sealed: string) => string | undefined,
): Array<string | null> {
  const stored = JSON.parse(config) as {
    clients?: Array<{ clientSecret?: unknown; clientSecretSealed?: string }>;
  };
  const ids: Array<string | null> = [];
  for (const client of stored.clients ?? []) {
    if (client.clientSecret !== undefined) ids.push(null);
    if (client.clientSecretSealed !== undefined) ids.push(keyIdOf(client.clientSecretSealed) ?? null);
  }
  return ids;
}

/** Whether two configurations say the same (key order aside). */
export function sameConfig(a: AppDef, b: AppDef): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
