/**
 * `auth.*`: Authorization Code with PKCE, brokered by the gateway. The S256 verifier, the state and the
 * OpenID nonce come from Web Crypto and wait in `sessionStorage` only between `signIn()` and `handleRedirectCallback()`,
 * which removes them; the tokens themselves never reach the page (httpOnly cookies).
 */
import type { AuthListener } from "./auth-state.ts";
import type { SessionEndReason } from "./codes.gen.ts";
import { GatewayError, type Transport } from "./transport.ts";
import type { DeletionReport, OwnSession, Session, SignOutResult, UserExport } from "./types.ts";
import { web } from "./web.ts";

const STORAGE_KEY = "session-gateway:pkce";
/** The `state` of a sign-out everywhere, between `signOut({ everywhere: true })` and `handleSignOutCallback()`. */
const SIGN_OUT_KEY = "session-gateway:sign-out";

interface Pending {
  verifier: string;
  state: string;
  /** Bound into the ID token by the provider; the gateway checks it comes back unchanged. */
  nonce: string;
  redirectUri: string;
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return web.btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function random(): string {
  return base64url(web.crypto.getRandomValues(new Uint8Array(32)));
}

async function challengeOf(verifier: string): Promise<string> {
  return base64url(
    new Uint8Array(await web.crypto.subtle.digest("SHA-256", new web.TextEncoder().encode(verifier))),
  );
}

interface WireOwnSession {
  id: string;
  current: boolean;
  client_id: string;
  created_at: string;
  last_seen_at: string;
  device: string;
}

function defaultRedirectUri(): string {
  return `${web.location.origin}${web.location.pathname}`;
}

export function authApi(transport: Transport) {
  const browserOnly = (what: string) => {
    if (transport.mode !== "browser")
      throw new GatewayError(
        400,
        "browser_only",
        `auth.${what}() needs a browser client (gatewayUrl + clientId).`,
      );
  };
  const options = transport.options;

  return {
    /** Sends the browser to /auth/authorize with a fresh PKCE challenge; `prompt: "login"` signs in again. */
    async signIn(opts: { prompt?: string } = {}): Promise<void> {
      browserOnly("signIn");
      const pending: Pending = {
        verifier: random(),
        state: random(),
        nonce: random(),
        redirectUri: options.redirectUri ?? defaultRedirectUri(),
      };
      web.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(pending));
      const query = new web.URLSearchParams({
        response_type: "code",
        client_id: options.clientId!,
        redirect_uri: pending.redirectUri,
        scope: options.scope ?? "openid offline_access",
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await challengeOf(pending.verifier),
        code_challenge_method: "S256",
        ...opts,
      });
      web.location.assign(`${transport.base}/auth/authorize?${query}`);
    },

    /** Finishes sign-in on the redirect URI: checks state, exchanges the code, cleans the address bar. */
    async handleRedirectCallback(
      url: string = web.location.href,
    ): Promise<{ authenticated: true; userId: string }> {
      browserOnly("handleRedirectCallback");
      const current = new web.URL(url);
      const params = new web.URLSearchParams(current.search);
      const saved = web.sessionStorage.getItem(STORAGE_KEY);
      web.sessionStorage.removeItem(STORAGE_KEY);
      for (const name of ["code", "state", "scope", "iss", "error", "error_description"])
        current.searchParams.delete(name);
      web.history.replaceState(web.history.state, "", `${current.pathname}${current.search}${current.hash}`);
      const refused = params.get("error");
      if (refused)
        throw new GatewayError(
          400,
          "sign_in_refused",
          `Sign-in was refused (${refused})${params.get("error_description") ? `: ${params.get("error_description")}` : "."}`,
        );
      const pending = saved ? (JSON.parse(saved) as Pending) : undefined;
      if (!pending || params.get("state") !== pending.state)
        throw new GatewayError(400, "state_mismatch", "This sign-in did not start here.");
      const code = params.get("code");
      if (!code) throw new GatewayError(400, "missing_code", "The redirect carries no code.");
      const signed = await transport.request<{ user_id: string }>("POST", "/auth/token", {
        noRetry: true,
        body: {
          code,
          code_verifier: pending.verifier,
          redirect_uri: pending.redirectUri,
          client_id: options.clientId,
          nonce: pending.nonce,
        },
      });
      transport.state.signedIn(signed.user_id);
      return { authenticated: true, userId: signed.user_id };
    },

    /**
     * Whether the browser is signed in, and as whom; when not, `reason` says why (`no_session`, or how
     * the session this browser had ended). With a token client: who the token belongs to.
     */
    async getSession(): Promise<Session> {
      if (transport.mode === "token") {
        try {
          const me = await transport.request<{ userId: string }>("GET", "/v1/me");
          return { authenticated: true, userId: me.userId };
        } catch (error) {
          if (error instanceof GatewayError && error.status === 401) return { authenticated: false };
          throw error;
        }
      }
      const session = await transport.request<{
        authenticated: boolean;
        user_id?: string;
        reason?: SessionEndReason;
      }>("GET", "/auth/session", { noRetry: true });
      if (session.authenticated && session.user_id) {
        transport.state.signedIn(session.user_id);
        return { authenticated: true, userId: session.user_id };
      }
      const reason = session.reason ?? "no_session";
      transport.state.ended(reason);
      return { authenticated: false, reason };
    },

    /**
     * Everything the gateway holds about the signed-in user, as one JSON document (sessions without
     * tokens, memberships, resources owned, pending invites and ownership offers, credits, linked rows,
     * and the audit events about the user).
     */
    exportData(): Promise<UserExport> {
      return transport.request<UserExport>("GET", "/v1/me/export");
    },

    /** Deletes the account; needs a sign-in in the last 10 min, else `reauthentication_required`. */
    async deleteAccount(): Promise<DeletionReport> {
      const report = await transport.request<DeletionReport>("DELETE", "/v1/me");
      transport.state.ended("deleted");
      return report;
    },

    /**
     * Signs out: the gateway revokes the refresh token and clears its cookies. With `everywhere: true`,
     * the person's other sessions in this app end too, and where the provider offers it the browser is
     * sent to the provider to end its login session there (which signs the person out of the other apps
     * that use it); it comes back to the client's registered post-logout redirect URI, where
     * `handleSignOutCallback()` checks the `state`. The answer says what ended.
     */
    async signOut(opts: { everywhere?: boolean } = {}): Promise<SignOutResult> {
      browserOnly("signOut");
      const state = opts.everywhere ? random() : undefined;
      if (state) web.sessionStorage.setItem(SIGN_OUT_KEY, state);
      const answer = await transport.request<{
        ended?: number;
        provider_logout?: boolean;
        redirect_to?: string;
      }>("POST", "/auth/logout", {
        noRetry: true,
        body: { client_id: options.clientId, ...(state ? { everywhere: true, state } : {}) },
      });
      transport.state.signedOut();
      if (answer.redirect_to) web.location.assign(answer.redirect_to);
      return { otherSessionsEnded: answer.ended ?? 0, providerLogout: answer.provider_logout ?? false };
    },

    /**
     * On the post-logout redirect URI: true when the address carries the `state` of the sign-out
     * everywhere this browser began (then removed from the address bar); false when no sign-out is
     * pending or the address has no state (a sign-in callback, say); another state fails with
     * `state_mismatch` (someone else sent the browser here).
     */
    handleSignOutCallback(url: string = web.location.href): boolean {
      browserOnly("handleSignOutCallback");
      const current = new web.URL(url);
      const state = new web.URLSearchParams(current.search).get("state");
      const saved = web.sessionStorage.getItem(SIGN_OUT_KEY);
      if (state === null || saved === null) return false;
      web.sessionStorage.removeItem(SIGN_OUT_KEY);
      if (saved !== state) throw new GatewayError(400, "state_mismatch", "This sign-out did not start here.");
      current.searchParams.delete("state");
      web.history.replaceState(web.history.state, "", `${current.pathname}${current.search}${current.hash}`);
      return true;
    },

    /**
     * The signed-in person's live sessions in this app, newest first: one per browser or device, with
     * `current` true for this one. Ids are public (not the cookie), for `revokeSession(id)`.
     */
    async listSessions(): Promise<OwnSession[]> {
      browserOnly("listSessions");
      const answer = await transport.request<{ sessions: WireOwnSession[] }>("GET", "/auth/sessions");
      return answer.sessions.map((s) => ({
        id: s.id,
        current: s.current,
        clientId: s.client_id,
        createdAt: s.created_at,
        lastSeenAt: s.last_seen_at,
        device: s.device,
      }));
    },

    /**
     * Ends one of the person's sessions in this app (another device's; this one's is `signOut()`). That
     * device learns it on its next call, with the reason `signed_out_elsewhere`. An id that is not one
     * of this person's live sessions in this app fails with `not_found`.
     */
    async revokeSession(id: string): Promise<void> {
      browserOnly("revokeSession");
      await transport.request("DELETE", `/auth/sessions/${encodeURIComponent(id)}`, { noRetry: true });
    },

    /** "Sign out my other devices": ends every session of the person in this app but this one. Returns how many. */
    async signOutOthers(): Promise<number> {
      browserOnly("signOutOthers");
      const answer = await transport.request<{ ended: number }>("POST", "/auth/sessions/revoke-others", {
        noRetry: true,
      });
      return answer.ended;
    },

    /**
     * Calls `listener` on each change of the sign-in state: `signed_in` (the redirect callback, or the
     * first `getSession()` that finds someone), `signed_out` (this client's `signOut()`) and
     * `session_ended` with the gateway's `reason` (a refresh it refused, or a `getSession()` that finds
     * the session gone: revoked by an operator, expired, signed out in another tab). Returns the
     * function that stops it.
     */
    onChange(listener: AuthListener): () => void {
      return transport.state.subscribe(listener);
    },
  };
}
