/**
 * The consent endpoints and the consent page the gateway serves (point Hydra's consent URL at
 * /auth/consent). Loading the request (page or JSON) binds it to the browser through the consent
 * nonce cookie; accept and reject read that cookie and refuse without the bound nonce.
 */
import { Elysia, t } from "elysia";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { requireCsrfOnPost } from "../http/csrf.ts";
import { acceptConsent, loadConsent, rejectConsent } from "./consent.ts";
import { consentCookieName, presentedNonces } from "./consent-binding.ts";
import { consentPage } from "./consent-page.ts";
import { authDocs as docs } from "./responses.ts";

const Challenge = t.String({ minLength: 1, maxLength: 1024 });

/** Consent through the gateway needs Hydra's consent admin API; other providers show their own consent. */
const notSupported = () => new Refusal("not_supported_by_provider");

export function consentRoutes(gateway: Gateway) {
  const requireReady = () => {
    if (!gateway.hydra.configured) throw new Refusal("issuer_not_configured");
    if (gateway.config.idpConsentApi === "none") throw notSupported();
  };
  const cookieName = consentCookieName(gateway.config);
  const noncesOf = (request: Request) => presentedNonces(request.headers.get("cookie"), cookieName);

  return (
    new Elysia({ name: "consent-routes" })
      .onTransform(requireCsrfOnPost)
      .get(
        "/auth/consent-request",
        async ({ query, request: http, set }) => {
          const view = await loadConsent(gateway, query.challenge, noncesOf(http));
          if (view.kind === "redirect")
            return view.skipped
              ? { skip: true, redirect_to: view.redirectTo }
              : { redirect_to: view.redirectTo };
          const { request, isNewUser, setCookie } = view;
          set.headers["cache-control"] = "no-store";
          if (setCookie) set.headers["set-cookie"] = setCookie;
          return {
            challenge: request.challenge,
            subject: request.subject,
            client_id: request.client.client_id,
            client_name: request.client.client_name ?? request.client.client_id,
            requested_scope: request.requested_scope,
            requested_access_token_audience: request.requested_access_token_audience,
            is_new_user: isNewUser,
          };
        },
        {
          beforeHandle: requireReady,
          query: t.Object({ challenge: Challenge }),
          detail: docs.consentRequest,
        },
      )

      .post(
        "/auth/consent/accept",
        async ({ body, request }) => {
          const result = await acceptConsent(gateway, {
            challenge: body.challenge,
            nonces: noncesOf(request),
            subject: body.subject,
            grantScope: body.grant_scope,
            remember: body.remember ?? false,
          });
          return { redirect_to: result.redirectTo, welcomed: result.welcomed };
        },
        {
          beforeHandle: requireReady,
          body: t.Object({
            challenge: Challenge,
            grant_scope: t.Array(t.String({ minLength: 1, maxLength: 256 }), { maxItems: 64 }),
            subject: t.String({ minLength: 1, maxLength: 256 }),
            remember: t.Optional(t.Boolean()),
          }),
          detail: docs.acceptConsent,
        },
      )

      .post(
        "/auth/consent/reject",
        async ({ body, request }) => {
          const { redirectTo } = await rejectConsent(gateway, body.challenge, noncesOf(request));
          return { redirect_to: redirectTo };
        },
        { beforeHandle: requireReady, body: t.Object({ challenge: Challenge }), detail: docs.rejectConsent },
      )

      // The page a browser is sent to: its refusals are the shared error pages when HTML is asked for
      // (an expired request offers to start again), and `{error, code}` JSON otherwise.
      .get(
        "/auth/consent",
        async ({ query, request }) => {
          const challenge = typeof query.consent_challenge === "string" ? query.consent_challenge : "";
          if (!challenge || challenge.length > 1024)
            throw new Refusal("invalid_request", {
              field: "consent_challenge",
              why: "is required (at most 1024 characters)",
            });
          requireReady();
          const view = await loadConsent(gateway, challenge, noncesOf(request));
          if (view.kind === "redirect")
            return new Response(null, { status: 302, headers: { location: view.redirectTo } });
          return consentPage(view.request, view.isNewUser, view.setCookie);
        },
        { detail: docs.consentPage },
      )
  );
}
