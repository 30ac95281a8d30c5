/**
 * `POST /auth/backchannel-logout`: the identity provider's server calls it (OpenID Back-Channel Logout
 * 1.0, 2.5), so it takes no cookie and no CSRF header, and its body is a form, not JSON. Its answers are
 * the specification's: 200 with an empty body, or 400 `{"error": "invalid_request", error_description}`
 * (which also carries the gateway's `code`), both `Cache-Control: no-store`. The token is at most a few
 * KiB: a body over 16 KiB is refused as a bad request before it is parsed. A provider that cannot be
 * reached (its keys) is the gateway's usual 502/503, which the provider may retry.
 */
import { Elysia } from "elysia";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { readBody } from "../http/body-timeout.ts";
import { IdTokenVerifier } from "../idp/id-tokens.ts";
import { receiveLogoutToken } from "./backchannel-logout.ts";
import { LogoutTokenJtis } from "./logout-token-jtis.ts";
import { authDocs as docs } from "./responses.ts";

export const MAX_LOGOUT_BODY_BYTES = 16 * 1024;
const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export function backchannelRoutes(gateway: Gateway) {
  const { apps, hydra, sessions, logouts, config } = gateway;
  const parts = {
    apps,
    hydra,
    sessions,
    logouts,
    verifier: new IdTokenVerifier(config.idpTimeoutMs ?? 5000),
    jtis: new LogoutTokenJtis(gateway.storage),
  };
  return new Elysia({ name: "backchannel-routes" }).post(
    "/auth/backchannel-logout",
    async ({ request }) => {
      if (!hydra.configured) throw new Refusal("issuer_not_configured");
      const token = await logoutTokenOf(request, config.bodyTimeoutMs);
      if ("refused" in token) return refused(token.refused);
      const outcome = await receiveLogoutToken(parts, token.value);
      if ("refused" in outcome) {
        gateway.log("warn", "back-channel logout refused", { cause: outcome.refused });
        return refused(outcome.refused);
      }
      gateway.log("info", "back-channel logout", { sessionsEnded: outcome.ended });
      return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
    },
    // The body is a form this route reads itself (plumbing's ROUTES_READING_OWN_BODY).
    { detail: docs.backchannelLogout },
  );
}

/** The form's one `logout_token`, or why the request carrying it is refused. */
async function logoutTokenOf(
  request: Request,
  bodyTimeoutMs: number | undefined,
): Promise<{ value: string } | { refused: string }> {
  if (!FORM.test(request.headers.get("content-type") ?? ""))
    return { refused: "the body must be application/x-www-form-urlencoded" };
  const bytes = await readBody(request, bodyTimeoutMs);
  if (bytes.byteLength > MAX_LOGOUT_BODY_BYTES) return { refused: "the body is larger than 16 KiB" };
  const values = new URLSearchParams(new TextDecoder().decode(bytes)).getAll("logout_token");
  const [value] = values;
  if (values.length !== 1 || !value) return { refused: "the form must carry exactly one logout_token" };
  return { value };
}

function refused(description: string): Response {
  return Response.json(
    { error: "invalid_request", error_description: description, code: "invalid_request" },
    { status: 400, headers: { "cache-control": "no-store" } },
  );
}
