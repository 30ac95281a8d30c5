/**
 * The /auth endpoints of the seed's auth table (except consent, in consent-routes.ts). Thin: parse,
 * call the session service or the provider client, shape the answer. Tokens never appear in a body.
 */
import { Elysia, t } from "elysia";
import { createRemoteJWKSet, jwtVerify } from "jose";
import type { Gateway } from "../gateway.ts";
import { ApiError, errors } from "../http/errors.ts";
import { idp } from "../idp/call.ts";
import type { TokenSet } from "../idp/hydra.ts";
import { FLOW_TYPES, type FlowType } from "../idp/kratos.ts";
import { clearSessionCookies, writeSessionCookie } from "./cookies.ts";
import { SessionService } from "./sessions.ts";

const Str = (max: number) => t.String({ minLength: 1, maxLength: max });

export function authRoutes(gateway: Gateway) {
  const { sessions, hydra, apps, config } = gateway;
  const cookieName = sessions.cookieName;
  const maxAgeOf = (expiresAt: number) => Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
  const requireIssuer = () => {
    if (!hydra.configured) throw errors.noIssuer();
  };
  const unauthenticated = () => new ApiError(401, "unauthenticated", "No valid session: sign in again.");

  return new Elysia({ name: "auth-routes" })
    .get("/auth/session", async ({ request }) => {
      const hit = sessions.peek(request.headers.get("cookie"));
      const report = (found: typeof hit) => {
        if (!found) return { authenticated: false };
        gateway.store.touch(found.row);
        return { authenticated: true, user_id: found.row.userId };
      };
      return report(hit !== undefined ? hit : await sessions.resolve(request.headers.get("cookie")));
    })

    .get("/auth/authorize", async ({ request, query }) => {
      requireIssuer();
      const clientId = typeof query.client_id === "string" ? query.client_id : undefined;
      if (clientId !== undefined) {
        const lookup = apps.lookupClient(clientId);
        if (!lookup) throw new ApiError(400, "unknown_client", `Unknown client_id "${clientId}".`);
        const redirectUri = typeof query.redirect_uri === "string" ? query.redirect_uri : "";
        if (!apps.isRegisteredRedirect(lookup, redirectUri)) {
          throw new ApiError(400, "invalid_redirect_uri", "redirect_uri is not registered for this client.");
        }
      }
      const { authorization_endpoint } = await discover(gateway);
      const raw = new URL(request.url).search.slice(1);
      const joiner = authorization_endpoint.includes("?") ? "&" : "?";
      return new Response(null, {
        status: 302,
        headers: { location: raw ? `${authorization_endpoint}${joiner}${raw}` : authorization_endpoint },
      });
    })

    .post(
      "/auth/token",
      async ({ body, cookie, request }) => {
        requireIssuer();
        const lookup = apps.lookupClient(body.client_id);
        if (!lookup) throw new ApiError(400, "unknown_client", `Unknown client_id "${body.client_id}".`);
        if (!apps.isRegisteredRedirect(lookup, body.redirect_uri)) {
          throw new ApiError(400, "invalid_redirect_uri", "redirect_uri is not registered for this client.");
        }
        const client = { clientId: body.client_id, clientSecret: lookup.client?.clientSecret };
        const result = await idp(() =>
          hydra.exchangeCode(client, body.code, body.code_verifier, body.redirect_uri),
        );
        if (!result.ok) {
          throw new ApiError(
            400,
            "exchange_failed",
            `The identity provider refused the code exchange (${result.error}).`,
          );
        }
        const userId = await subjectOf(gateway, result.tokens, body.client_id);
        const previous = await sessions.resolve(request.headers.get("cookie"));
        if (previous) sessions.end(previous.row.id, "replaced", previous.row.userId);
        const { row, sealed } = await sessions.start(result.tokens, userId, body.client_id);
        writeSessionCookie(
          cookie,
          config,
          cookieName,
          sealed,
          maxAgeOf(row.expiresAt),
          request.headers.get("cookie"),
        );
        gateway.log("info", "session started", { sessionId: row.id, userId, clientId: body.client_id });
        return { authenticated: true, expires_in: Math.max(0, result.tokens.expiresIn) };
      },
      {
        body: t.Object({
          code: Str(4096),
          code_verifier: Str(256),
          redirect_uri: Str(2048),
          client_id: Str(128),
        }),
      },
    )

    .post(
      "/auth/refresh",
      async ({ body, cookie, request }) => {
        requireIssuer();
        const header = request.headers.get("cookie");
        const outcome = await idp(() => sessions.refresh(header));
        if (outcome.kind !== "ok") {
          clearSessionCookies(cookie, config, cookieName, header);
          throw unauthenticated();
        }
        if (body?.client_id !== undefined && body.client_id !== outcome.row.clientId) {
          throw errors.invalidRequest("client_id", "does not match the session's client");
        }
        if (outcome.sealed)
          writeSessionCookie(
            cookie,
            config,
            cookieName,
            outcome.sealed,
            maxAgeOf(outcome.row.expiresAt),
            header,
          );
        return { authenticated: true, expires_in: SessionService.expiresIn(outcome.cookie) };
      },
      { body: t.Optional(t.Object({ client_id: t.Optional(Str(128)) })) },
    )

    .post("/auth/logout", async ({ cookie, request }) => {
      const header = request.headers.get("cookie");
      try {
        const found = await sessions.resolve(header);
        if (found) {
          sessions.end(found.row.id, "logout", found.row.userId);
          gateway.tokens.forget(found.cookie.at);
          if (found.cookie.rt && hydra.configured) {
            const client = apps.lookupClient(found.row.clientId)?.client;
            await hydra.revoke(
              { clientId: found.row.clientId, clientSecret: client?.clientSecret },
              found.cookie.rt,
            );
          }
        }
      } catch (error) {
        gateway.log("warn", "logout cleanup failed", { error: (error as Error).name });
      }
      clearSessionCookies(cookie, config, cookieName, header);
      return { ok: true };
    })

    .get("/auth/kratos/flow", async ({ query, request, set }) => {
      const type = query.type as FlowType;
      if (!FLOW_TYPES.includes(type))
        throw errors.invalidRequest("type", `must be one of ${FLOW_TYPES.join(", ")}`);
      if (typeof query.id !== "string" || !/^[A-Za-z0-9-]{1,64}$/.test(query.id)) {
        throw errors.invalidRequest("id", "must match ^[A-Za-z0-9-]{1,64}$");
      }
      if (!gateway.kratos.publicUrl)
        throw new ApiError(503, "kratos_not_configured", "No Kratos is configured (KRATOS_PUBLIC_URL).");
      const answer = await idp(() =>
        gateway.kratos.fetchFlow(type, query.id as string, request.headers.get("cookie")),
      );
      const headers = new Headers({ "content-type": "application/json" });
      for (const value of answer.setCookies) headers.append("set-cookie", value);
      for (const [name, value] of Object.entries(set.headers))
        if (typeof value === "string") headers.set(name, value);
      return new Response(answer.body, { status: answer.status, headers });
    });
}

async function discover(gateway: Gateway) {
  return idp(() => gateway.hydra.discover());
}

const jwksByUri = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/**
 * The user id (the provider's `sub`): from the verified ID token when there is one (signature, issuer,
 * audience), else from the bearer validation path (introspection or userinfo), which also warms the cache.
 */
async function subjectOf(gateway: Gateway, tokens: TokenSet, clientId: string): Promise<string> {
  const discovery = await discover(gateway);
  if (tokens.idToken && discovery.jwks_uri) {
    const jwks = jwksByUri.get(discovery.jwks_uri) ?? createRemoteJWKSet(new URL(discovery.jwks_uri));
    jwksByUri.set(discovery.jwks_uri, jwks);
    try {
      const { payload } = await jwtVerify(tokens.idToken, jwks, {
        issuer: discovery.issuer,
        audience: clientId,
        clockTolerance: 30,
      });
      if (typeof payload.sub === "string" && payload.sub) return payload.sub;
    } catch {
      throw new ApiError(
        502,
        "idp_unavailable",
        "The identity provider returned an ID token that does not verify.",
      );
    }
  }
  const principal = await idp(() => gateway.tokens.validate(tokens.accessToken));
  if (!principal)
    throw new ApiError(502, "idp_unavailable", "The identity provider did not accept its own access token.");
  return principal.userId;
}
