/**
 * The /auth endpoints: authorize, token, refresh, logout, session and the Kratos flow proxy (consent
 * is in consent-routes.ts). Thin: parse, call the session service or the provider client, shape the
 * answer. Tokens never appear in a body.
 */
import { Elysia, t } from "elysia";
import { requireClient } from "../apps/clients.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { requireCsrfOnPost } from "../http/csrf.ts";
import { checkOrigin, originReport } from "../http/origin.ts";
import { noteCredential } from "../http/request-context.ts";
import { synchronous } from "../http/synchronous.ts";
import { idp } from "../idp/call.ts";
import { IdTokenVerifier } from "../idp/id-tokens.ts";
import { FLOW_TYPES, type FlowType } from "../idp/kratos.ts";
import { checkedAuthorizeQuery } from "./authorize.ts";
import { ensureSignInEffects } from "./consent.ts";
import { clearSessionCookies, writeSessionCookie } from "./cookies.ts";
import { describeDevice } from "./device.ts";
import { authDocs as docs } from "./responses.ts";
import { endedRefusal } from "./session-end.ts";
import { SessionService, signedInView } from "./sessions.ts";
import { signInSubject } from "./sign-in-subject.ts";
import { signOutEverywhere } from "./sign-out-everywhere.ts";

const Str = (max: number) => t.String({ minLength: 1, maxLength: max });

export function authRoutes(gateway: Gateway) {
  const { sessions, hydra, apps, config } = gateway;
  const cookieName = sessions.cookieName;
  const signIn = {
    hydra,
    tokens: gateway.tokens,
    verifier: new IdTokenVerifier(config.idpTimeoutMs ?? 5000),
    log: gateway.log,
  };
  const everywhereParts = {
    apps,
    sessions,
    sealer: gateway.sealer,
    discover: async () => {
      if (!hydra.configured) return undefined;
      // The person's sessions here have ended; a provider that does not answer only loses its part.
      return hydra.discover().catch((error) => {
        gateway.log("warn", "sign-out everywhere: the provider's metadata is unavailable", {
          error: (error as Error).name,
        });
        return undefined;
      });
    },
  };
  const maxAgeOf = (expiresAt: number) => Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
  const requireIssuer = () => {
    if (!hydra.configured) throw new Refusal("issuer_not_configured");
  };
  /** The request's live session, refused (403) when it comes from an origin not registered for its app. */
  const sessionOf = async (request: Request) => {
    const found = await sessions.resolve(request.headers.get("cookie"));
    if (found) {
      noteCredential(request, "cookie", found.row.clientId);
      checkOrigin(apps, request, apps.appFor(found.row.clientId).id);
    }
    return found;
  };

  /** What `GET /auth/session` answers for the session the cookie resolved to (null: none). */
  const sessionView = (
    request: Request,
    cookieHeader: string | null,
    found: Awaited<ReturnType<typeof sessions.resolve>>,
  ): object | Promise<object> => {
    if (!found) return sessions.endReason(cookieHeader).then((reason) => ({ authenticated: false, reason }));
    noteCredential(request, "cookie", found.row.clientId);
    checkOrigin(apps, request, apps.appFor(found.row.clientId).id);
    gateway.store.touch(found.row);
    return signedInView(found.row.userId);
  };

  return new Elysia({ name: "auth-routes" })
    .onTransform(requireCsrfOnPost)
    .get(
      "/auth/session",
      synchronous(({ request }: { request: Request }) => {
        const cookieHeader = request.headers.get("cookie");
        const found = sessions.resolve(cookieHeader);
        // A closure only where the session must be read from the database.
        return found instanceof Promise
          ? found.then((resolved) => sessionView(request, cookieHeader, resolved))
          : sessionView(request, cookieHeader, found);
      }),
      { detail: docs.session },
    )
    .get(
      "/auth/origin",
      ({ request, query, set }) => {
        const report = originReport(apps, request, query.client_id);
        // Readable by any page (no credential involved): a refused page learns why it is refused.
        if (!report.allowed) set.headers["access-control-allow-origin"] = "*";
        return report;
      },
      { query: t.Object({ client_id: t.Optional(Str(200)) }), detail: docs.origin },
    )

    .get(
      "/auth/authorize",
      async ({ request }) => {
        requireIssuer();
        const query = checkedAuthorizeQuery(apps, new URL(request.url).searchParams, {
          development: config.development,
        });
        const { authorization_endpoint } = await discover(gateway);
        const target = new URL(authorization_endpoint);
        for (const [name, value] of query) target.searchParams.set(name, value);
        return new Response(null, { status: 302, headers: { location: target.toString() } });
      },
      { detail: docs.authorize },
    )

    .post(
      "/auth/token",
      async ({ body, cookie, request }) => {
        requireIssuer();
        const lookup = requireClient(apps, body.client_id, "sign_in");
        checkOrigin(apps, request, lookup.app.id);
        if (!apps.isRegisteredRedirect(lookup, body.redirect_uri)) {
          const registered = config.development ? (lookup.client?.redirectUris ?? []) : undefined;
          throw new Refusal("invalid_redirect_uri", {
            clientId: body.client_id,
            redirectUri: body.redirect_uri,
            registeredRedirectUris: registered,
          });
        }
        // A browser holding another app's session cannot sign in over it from this origin.
        const previous = await sessionOf(request);
        const client = { clientId: body.client_id, clientSecret: lookup.client?.clientSecret };
        const result = await idp(() =>
          hydra.exchangeCode(client, body.code, body.code_verifier, body.redirect_uri),
        );
        if (!result.ok) {
          throw new Refusal("exchange_failed", { providerError: result.error });
        }
        const { userId, providerSid } = await signInSubject(signIn, result.tokens, client, body.nonce);
        // A deleted account: the provider still knows the subject, so its new grant is revoked, best
        // effort, after the answer. Asked first, and again by the session's own transaction (a deletion
        // committed in between).
        const refuseDeleted = () => {
          const { refreshToken } = result.tokens;
          if (refreshToken)
            void sessions.revokeToken(body.client_id, refreshToken, "(deleted account)").catch(() => {});
          return new Refusal("account_deleted");
        };
        if (await gateway.deleted.isDeleted(userId)) throw refuseDeleted();
        if (previous) await sessions.end(previous.row.id, "replaced", previous.row.userId);
        const { row, sealed } = await sessions
          .start(
            result.tokens,
            userId,
            body.client_id,
            providerSid,
            describeDevice(request.headers.get("user-agent")),
          )
          .catch((error) => {
            throw error instanceof Refusal && error.code === "account_deleted" ? refuseDeleted() : error;
          });
        writeSessionCookie(
          cookie,
          config,
          cookieName,
          sealed,
          maxAgeOf(row.expiresAt),
          request.headers.get("cookie"),
        );
        gateway.log("info", "session started", { sessionId: row.id, userId, clientId: body.client_id });
        await ensureSignInEffects(gateway, userId, body.client_id);
        return { authenticated: true, user_id: userId, expires_in: Math.max(0, result.tokens.expiresIn) };
      },
      {
        body: t.Object({
          code: Str(4096),
          code_verifier: Str(256),
          redirect_uri: Str(2048),
          client_id: Str(128),
          nonce: t.Optional(Str(256)),
        }),
        detail: docs.token,
      },
    )

    .post(
      "/auth/refresh",
      async ({ body, cookie, request }) => {
        requireIssuer();
        const header = request.headers.get("cookie");
        const found = await sessionOf(request);
        // Checked before the provider is called: a refresh for another client changes nothing.
        if (found && body?.client_id !== undefined && body.client_id !== found.row.clientId) {
          throw new Refusal("invalid_request", {
            field: "client_id",
            why: "does not match the session's client",
          });
        }
        const outcome = await idp(() => sessions.refresh(found));
        if (outcome.kind === "reused") {
          gateway.log("warn", "refresh token reused after its grace: session ended, grant revoked", {
            sessionId: found?.row.id,
            userId: found?.row.userId,
          });
        }
        if (outcome.kind !== "ok") {
          clearSessionCookies(cookie, config, cookieName, header);
          throw endedRefusal(await sessions.endReason(header));
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
        return {
          authenticated: true,
          user_id: outcome.row.userId,
          expires_in: SessionService.expiresIn(outcome.cookie),
        };
      },
      { body: t.Optional(t.Object({ client_id: t.Optional(Str(128)) })), detail: docs.refresh },
    )

    .post(
      "/auth/logout",
      async ({ body, cookie, request }) => {
        const header = request.headers.get("cookie");
        const found = await sessionOf(request);
        try {
          if (found) {
            await sessions.end(found.row.id, "logout", found.row.userId);
            gateway.tokens.forget(found.cookie.at);
            if (found.cookie.rt && hydra.configured)
              await sessions.revokeToken(found.row.clientId, found.cookie.rt, found.row.id);
          }
        } catch (error) {
          gateway.log("warn", "logout cleanup failed", { error: (error as Error).name });
        }
        clearSessionCookies(cookie, config, cookieName, header);
        if (!found || !body?.everywhere) return { ok: true };
        return { ok: true, ...(await signOutEverywhere(everywhereParts, found.row, body.state)) };
      },
      {
        body: t.Optional(
          t.Object({
            client_id: t.Optional(Str(128)),
            everywhere: t.Optional(t.Boolean()),
            state: t.Optional(t.String({ minLength: 1, maxLength: 256, pattern: "^[A-Za-z0-9._~-]+$" })),
          }),
        ),
        detail: docs.logout,
      },
    )

    .get(
      "/auth/kratos/flow",
      async ({ query, request, set }) => {
        const type = query.type as FlowType;
        if (!FLOW_TYPES.includes(type))
          throw new Refusal("invalid_request", {
            field: "type",
            why: `must be one of ${FLOW_TYPES.join(", ")}`,
          });
        if (typeof query.id !== "string" || !/^[A-Za-z0-9-]{1,64}$/.test(query.id)) {
          throw new Refusal("invalid_request", { field: "id", why: "must match ^[A-Za-z0-9-]{1,64}$" });
        }
        if (!gateway.kratos.publicUrl) throw new Refusal("kratos_not_configured");
        const answer = await idp(() =>
          gateway.kratos.fetchFlow(type, query.id as string, request.headers.get("cookie")),
        );
        const headers = new Headers({ "content-type": "application/json" });
        for (const value of answer.setCookies) headers.append("set-cookie", value);
        for (const [name, value] of Object.entries(set.headers))
          if (typeof value === "string") headers.set(name, value);
        return new Response(answer.body, { status: answer.status, headers });
      },
      { detail: docs.kratosFlow },
    );
}

async function discover(gateway: Gateway) {
  return idp(() => gateway.hydra.discover());
}
