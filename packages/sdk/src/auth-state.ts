/**
 * What a browser client knows of its session, and who wants to hear when it changes. `auth.onChange`
 * listeners hear of a sign-in (the redirect callback, or the first `getSession()` that finds someone),
 * of this client's own `signOut()`, and of a session that ended under the page: a refresh the gateway
 * refused, or a `getSession()` that finds the session gone, with the gateway's reason.
 */
import type { SessionEndReason } from "./codes.gen.ts";
import { web } from "./web.ts";

export type AuthChange =
  | { type: "signed_in"; userId: string }
  /** This client's `signOut()`. */
  | { type: "signed_out" }
  /** The session ended elsewhere: revoked by an operator, expired, signed out in another tab… */
  | { type: "session_ended"; reason: SessionEndReason };

export type AuthListener = (change: AuthChange) => void;

export class AuthState {
  private readonly listeners = new Set<AuthListener>();
  /** Who the client last knew was signed in: undefined before the first answer, null when nobody. */
  private user: string | null | undefined;

  subscribe(listener: AuthListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  signedIn(userId: string): void {
    if (this.user === userId) return;
    this.user = userId;
    this.emit({ type: "signed_in", userId });
  }

  signedOut(): void {
    const was = this.user;
    this.user = null;
    if (was !== null) this.emit({ type: "signed_out" });
  }

  /** The gateway says there is no live session, and why. Said once per session, not per call. */
  ended(reason: SessionEndReason): void {
    const was = this.user;
    this.user = null;
    if (was === null || (was === undefined && reason === "no_session")) return;
    this.emit({ type: "session_ended", reason });
  }

  private emit(change: AuthChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        // A listener's failure is the app's bug: reported as uncaught (window.onerror sees it), it
        // must not break the call that noticed the change.
        if (typeof web.reportError === "function") web.reportError(error);
        else
          web.setTimeout(() => {
            throw error;
          }, 0);
      }
    }
  }
}
