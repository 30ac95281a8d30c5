/**
 * The shapes the API answers with (resource view, browse item, member entry). They are the TypeBox models the
 * server shapes its views with (src/server/resources/model.ts), imported as types only, so the SDK
 * bundle carries no schema library.
 */
import type { BrowseItem, MemberEntry, RequestedView, ResourceView } from "../server/resources/model.ts";

export type { BrowseItem, MemberEntry, RequestedView, ResourceView };

export type Role = "reader" | "writer" | "admin" | "owner";
export type MemberState = "invited" | "requested" | "active";
export type Visibility = "members" | "unlisted" | "discoverable";

export interface Session {
  authenticated: boolean;
  userId?: string;
}

export interface BrowseOptions {
  type?: string;
  query?: string;
  limit?: number;
  cursor?: string | null;
}

export interface BrowsePage {
  rows: BrowseItem[];
  nextCursor: string | null;
}

/** Browser apps: the gateway URL and the OAuth client id, nothing else (tokens stay in httpOnly cookies). */
export interface BrowserClientOptions {
  gatewayUrl: string;
  clientId: string;
  /** Where the provider sends the browser back; default: the current page without its query. */
  redirectUri?: string;
  /** Scopes to ask for; default "openid offline_access". */
  scope?: string;
  fetch?: FetchLike;
}

/** Servers: the gateway URL and an access token sent as a bearer (no cookies, no CSRF header). */
export interface ServerClientOptions {
  gatewayUrl: string;
  accessToken: string;
  fetch?: FetchLike;
}

export type ClientOptions = BrowserClientOptions | ServerClientOptions;

/** A `fetch` to use instead of the global one (tests, custom agents). */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;
