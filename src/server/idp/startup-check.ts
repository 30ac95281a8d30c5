/**
 * At start-up, what the provider's metadata means for this gateway, said once and loudly:
 *
 * - a discovery `issuer` other than OIDC_ISSUER stops start-up (ID tokens would be checked against an
 *   issuer nobody configured);
 * - no revocation endpoint: sign-out and an operator's revoke cannot reach the provider, and refresh
 *   tokens stay valid there until they expire (a warning, repeated at each sign-out);
 * - bearer introspection configured but its endpoint missing or answering anything but a well-formed
 *   `active: false` for a made-up token: every bearer token would be answered 502 (an error line).
 *
 * A provider that cannot be reached at start-up is a warning only: the gateway starts and retries.
 */
import { ConfigError } from "../config.ts";
import type { Logger } from "../lib/log.ts";
import type { HydraClient } from "./hydra.ts";
import { IssuerMismatch } from "./metadata.ts";

export async function checkProvider(hydra: HydraClient, log: Logger): Promise<void> {
  if (!hydra.configured) return;
  let metadata: Awaited<ReturnType<HydraClient["discover"]>>;
  try {
    metadata = await hydra.discover();
  } catch (error) {
    if (error instanceof IssuerMismatch)
      throw new ConfigError("OIDC_ISSUER", `does not match: ${error.message}`);
    log("warn", "the identity provider could not be reached at start-up; retrying on first use", {
      cause: (error as Error).message,
    });
    return;
  }
  log("info", "identity provider", {
    issuer: metadata.issuer,
    revocation: metadata.sources.revocation,
    introspection: hydra.introspects ? metadata.sources.introspection : "not used (userinfo)",
  });
  if (!metadata.revocation_endpoint)
    log("warn", "revocation is impossible: sign-out cannot revoke refresh tokens at the provider", {
      hint: "set IDP_REVOCATION_URL, or use a provider that publishes revocation_endpoint",
    });
  if (!hydra.introspects) return;
  if (!metadata.introspection_endpoint) {
    log(
      "error",
      "bearer tokens cannot be checked: no introspection endpoint, every bearer token will be 502",
      {
        hint: "set IDP_INTROSPECTION_URL",
      },
    );
    return;
  }
  try {
    const probe = await hydra.introspect(`gateway-start-up-probe-${crypto.randomUUID()}`);
    if (probe.active)
      log("error", "introspection says a made-up token is active", { url: metadata.introspection_endpoint });
  } catch (error) {
    log("error", "introspection does not work: every bearer token will be answered 502", {
      url: metadata.introspection_endpoint,
      cause: (error as Error).message,
      hint: "check IDP_INTROSPECTION_URL and its credential (IDP_ADMIN_API_KEY or IDP_INTROSPECTION_CLIENT_ID/_SECRET)",
    });
  }
}
