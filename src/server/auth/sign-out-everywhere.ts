/**
 * Signing out everywhere (`POST /auth/logout` with `everywhere: true`): besides this browser's session
 * (ended by the logout route as usual), every other live session of the person in this app ends at
 * once (reason `signed_out_elsewhere`, their refresh tokens revoked at the provider). Then, where the
 * provider publishes an `end_session_endpoint` (OpenID RP-Initiated Logout 1.0), the answer carries
 * the URL the browser must visit to end its login session there: with the sign-in's ID token as
 * `id_token_hint` (kept sealed on the session row, never in a body otherwise), the client's first
 * registered `post_logout_redirect_uri` and the page's `state` (the SDK checks it on return). A provider
 * that ends its login session tells every client the person used, through back-channel logout, so the
 * person's sessions in other apps end too. Without an end_session_endpoint only this app's gateway
 * sessions end, and the answer says so (`provider_logout: false`).
 */
import type { AppRegistry } from "../apps/registry.ts";
import type { Discovery } from "../idp/metadata.ts";
import type { CookieSealer } from "./seal.ts";
import type { SessionRow } from "./session-store.ts";
import type { SessionService } from "./sessions.ts";

export interface SignOutEverywhereParts {
  apps: AppRegistry;
  sessions: SessionService;
  sealer: Pick<CookieSealer, "unsealText">;
  /** The provider's metadata, or undefined when no provider is configured. */
  discover: () => Promise<Pick<Discovery, "end_session_endpoint"> | undefined>;
}

export interface SignedOutEverywhere {
  /** How many other sessions of the person in this app ended. */
  ended: number;
  /** True when the browser is sent to the provider to end its login session there. */
  provider_logout: boolean;
  /** Where the browser goes next (the provider's end_session_endpoint), when it does. */
  redirect_to?: string;
}

/** Ends the person's other sessions in this app; `row` is the browser's own (already ended). */
export async function signOutEverywhere(
  parts: SignOutEverywhereParts,
  row: SessionRow,
  state: string | undefined,
): Promise<SignedOutEverywhere> {
  const ended = await parts.sessions.endOwn({
    userId: row.userId,
    clientIds: parts.apps.clientIdsOfApp(row.clientId),
    except: row.id,
  });
  const endpoint = (await parts.discover())?.end_session_endpoint;
  if (!endpoint) return { ended, provider_logout: false };
  const target = new URL(endpoint);
  const idToken = row.idTokenSealed ? await parts.sealer.unsealText(row.idTokenSealed) : null;
  if (idToken) target.searchParams.set("id_token_hint", idToken);
  target.searchParams.set("client_id", row.clientId);
  const back = parts.apps.lookupClient(row.clientId)?.client?.postLogoutRedirectUris?.[0];
  if (back) {
    target.searchParams.set("post_logout_redirect_uri", back);
    if (state) target.searchParams.set("state", state);
  }
  return { ended, provider_logout: true, redirect_to: target.toString() };
}
