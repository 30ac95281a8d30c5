/**
 * Server-to-server fetch of Ory Kratos self-service flows. Browsers cannot call Kratos'
 * flow endpoints across origins with its SameSite cookies, so the gateway fetches from the PUBLIC port
 * (the admin fetch was removed in Kratos PR #1458) with the browser's own Cookie header, and relays
 * Kratos' status and JSON body untouched (403 CSRF violation, 404 unknown, 410 expired included).
 *
 * The browser's cookies go to Kratos minus the gateway's own (the sealed session and the consent
 * nonce), and Kratos' Set-Cookies come back minus any for a gateway cookie name: Kratos is another
 * service, and neither reading the gateway's credentials nor replacing them is its business.
 */
import { type CookieNameMatcher, mayRelaySetCookie, withoutCookies } from "../auth/gateway-cookies.ts";
import { fetchText, unusableAnswer } from "./provider-fetch.ts";

export const FLOW_TYPES = ["login", "registration", "recovery", "settings", "verification", "error"] as const;
export type FlowType = (typeof FLOW_TYPES)[number];

export interface FlowAnswer {
  status: number;
  body: string;
  setCookies: string[];
}

export class KratosClient {
  constructor(
    readonly publicUrl: string | undefined,
    /** Names of the gateway's own cookies: never forwarded, never set through the proxy. */
    private readonly isGatewayCookie: CookieNameMatcher,
    /** The bound on the whole call, headers and body. */
    private readonly timeoutMs = 5000,
  ) {}

  /** Fetches a flow with the browser's Cookie header (the gateway's own cookies are taken out). */
  async fetchFlow(type: FlowType, id: string, cookieHeader: string | null): Promise<FlowAnswer> {
    const path = type === "error" ? "/self-service/errors" : `/self-service/${type}/flows`;
    const headers: Record<string, string> = { accept: "application/json" };
    const cookie = withoutCookies(cookieHeader, this.isGatewayCookie);
    if (cookie) headers.cookie = cookie;
    const url = `${this.publicUrl}${path}?id=${encodeURIComponent(id)}`;
    const res = await fetchText(url, { headers }, this.timeoutMs);
    const body = res.text;
    try {
      JSON.parse(body);
    } catch {
      throw unusableAnswer(`kratos answered ${res.status} without JSON`, url, res.status, res.durationMs);
    }
    const setCookies = res.headers
      .getSetCookie()
      .filter((value) => mayRelaySetCookie(value, this.isGatewayCookie));
    return { status: res.status, body, setCookies };
  }
}
