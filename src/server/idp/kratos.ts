/**
 * Server-to-server fetch of Ory Kratos self-service flows (CONTRACT §5b). Browsers cannot call Kratos'
 * flow endpoints across origins with its SameSite cookies, so the gateway fetches from the PUBLIC port
 * (the admin fetch was removed in Kratos PR #1458) with the browser's own Cookie header, and relays
 * Kratos' status and JSON body untouched (403 CSRF violation, 404 unknown, 410 expired included).
 */
import { IdpUnavailable } from "./hydra.ts";

export const FLOW_TYPES = ["login", "registration", "recovery", "settings", "verification", "error"] as const;
export type FlowType = (typeof FLOW_TYPES)[number];

export interface FlowAnswer {
  status: number;
  body: string;
  setCookies: string[];
}

export class KratosClient {
  constructor(readonly publicUrl: string | undefined) {}

  async fetchFlow(type: FlowType, id: string, cookieHeader: string | null): Promise<FlowAnswer> {
    const path = type === "error" ? "/self-service/errors" : `/self-service/${type}/flows`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (cookieHeader) headers.cookie = cookieHeader;
    let res: Response;
    try {
      res = await fetch(`${this.publicUrl}${path}?id=${encodeURIComponent(id)}`, {
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(5000),
      });
    } catch (error) {
      throw new IdpUnavailable((error as Error).message);
    }
    const body = await res.text();
    try {
      JSON.parse(body);
    } catch {
      throw new IdpUnavailable(`kratos answered ${res.status} without JSON`);
    }
    return { status: res.status, body, setCookies: res.headers.getSetCookie() };
  }
}
