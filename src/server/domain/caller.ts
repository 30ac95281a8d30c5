/**
 * Who a call acts for, once its credential is resolved (http/principal.ts does that: a session cookie
 * or a bearer token). Services take it as the actor of every change; they never see the credential, so
 * a service cannot tell, or care, how the caller signed in beyond `via`.
 */
export interface Caller {
  userId: string;
  /** The OAuth client: from the session, or from introspection; undefined under the userinfo fallback. */
  clientId: string | undefined;
  /** The app the client belongs to: every resource, type and list the call sees is this app's. */
  appId: string;
  via: "cookie" | "bearer";
  sessionId?: string;
}
