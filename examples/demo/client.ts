/**
 * The demo's one SDK client. Everything the page knows about the gateway is its URL and a client id,
 * read from /config.json (the demo server fills them in).
 */
import { createClient } from "../../packages/sdk/src/index.ts";

const config = (await (await fetch("/config.json")).json()) as { gatewayUrl: string; clientId: string };

export const gateway = createClient({
  gatewayUrl: config.gatewayUrl,
  clientId: config.clientId,
  redirectUri: `${location.origin}/`,
});

/** The app's own membership resource (consent joins every user to it): not one of "my resources". */
export const APP_RESOURCE_TYPE = "_app";

/** Who the page shows as signed in (null: nobody). session.ts alone changes it. */
export const viewer: { userId: string | null } = { userId: null };
