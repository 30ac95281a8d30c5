/**
 * Consent handling. The provider's consent states pass through:
 * a used challenge (Hydra 410) answers `{ redirect_to }` so the page can move on; an unknown or expired
 * one is 404 `consent_not_found`. After an accept (or an auto-accepted `skip`), two side effects run,
 * best effort, never blocking consent: the `_app` join hook and the one-time welcome credit. Neither
 * happens for a deleted account (each refuses it in its transaction); its sign-in is refused at
 * `/auth/token`.
 *
 * Deciding needs the browser that loaded the request (consent-binding.ts): a load that must ask binds
 * the challenge (or finds it bound elsewhere: 403 `consent_not_bound`), and accept and reject check the
 * binding before anything reaches the provider. Only the auto-accepted `skip` needs no binding.
 */
import { grantWelcomeCredit, hasWelcomeCredit, recordConsent } from "../credits/ledger.ts";
import { isBusy } from "../db/open.ts";
import type { TransactionOptions } from "../db/sql.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { idp } from "../idp/call.ts";
import type { ConsentRequest } from "../idp/hydra.ts";
import { checkSubject } from "../idp/subject.ts";
import { bindConsent, isConsentBound } from "./consent-binding.ts";

export const REMEMBER_FOR_SECONDS = 30 * 24 * 3600;

export const consentNotFound = () => new Refusal("consent_not_found");

export const consentNotBound = () => new Refusal("consent_not_bound");

export type ConsentView =
  /** `setCookie`: the nonce cookie to send, when this load bound the challenge. */
  | { kind: "ask"; request: ConsentRequest; isNewUser: boolean; setCookie: string | undefined }
  | { kind: "redirect"; redirectTo: string; skipped: boolean };

/**
 * Loads a consent request for the browser presenting `nonces`: binds it on the first load, refuses
 * other browsers (403 `consent_not_bound`); auto-accepts it (with side effects) when the provider says skip.
 */
export async function loadConsent(
  gateway: Gateway,
  challenge: string,
  nonces: string[],
): Promise<ConsentView> {
  const found = await idp(() => gateway.hydra.getConsentRequest(challenge));
  if (found.kind === "not_found") throw consentNotFound();
  if (found.kind === "used") return { kind: "redirect", redirectTo: found.redirectTo, skipped: false };
  const request = found.request;
  checkSubject(request.subject);
  if (!request.skip) {
    const binding = await bindConsent(gateway.storage, gateway.config, challenge, nonces);
    if (!binding.bound) throw consentNotBound();
    // A deleted account is never welcomed again (its ledger rows now carry a pseudonym).
    const isNewUser =
      !(await gateway.deleted.isDeleted(request.subject)) &&
      !(await hasWelcomeCredit(gateway.storage, request.subject));
    return { kind: "ask", request, isNewUser, setCookie: binding.setCookie };
  }
  const accepted = await idp(() =>
    gateway.hydra.acceptConsent(challenge, {
      grant_scope: request.requested_scope,
      grant_access_token_audience: request.requested_access_token_audience,
    }),
  );
  if (accepted.kind === "not_found") throw consentNotFound();
  if (accepted.kind === "done") await afterConsent(gateway, request);
  return { kind: "redirect", redirectTo: accepted.redirectTo, skipped: true };
}

export interface AcceptConsentOptions {
  challenge: string;
  /** The consent nonces the browser presents; one must be bound to the challenge. */
  nonces: string[];
  subject: string;
  grantScope: string[];
  remember: boolean;
}

export async function acceptConsent(
  gateway: Gateway,
  options: AcceptConsentOptions,
): Promise<{ redirectTo: string; welcomed: boolean }> {
  if (!(await isConsentBound(gateway.storage, options.challenge, options.nonces))) throw consentNotBound();
  const found = await idp(() => gateway.hydra.getConsentRequest(options.challenge));
  if (found.kind === "not_found") throw consentNotFound();
  if (found.kind === "used") return { redirectTo: found.redirectTo, welcomed: false };
  const request = found.request;
  checkSubject(request.subject);
  if (request.subject !== options.subject) {
    throw new Refusal("subject_mismatch");
  }
  const requested = new Set(request.requested_scope);
  const extra = options.grantScope.filter((scope) => !requested.has(scope));
  if (extra.length > 0) throw new Refusal("invalid_scope", { notRequested: extra });
  const accepted = await idp(() =>
    gateway.hydra.acceptConsent(options.challenge, {
      grant_scope: options.grantScope,
      grant_access_token_audience: request.requested_access_token_audience,
      remember: options.remember,
      remember_for: options.remember ? REMEMBER_FOR_SECONDS : undefined,
    }),
  );
  if (accepted.kind === "not_found") throw consentNotFound();
  if (accepted.kind === "used") return { redirectTo: accepted.redirectTo, welcomed: false };
  const welcomed = await afterConsent(gateway, request);
  return { redirectTo: accepted.redirectTo, welcomed };
}

export async function rejectConsent(
  gateway: Gateway,
  challenge: string,
  nonces: string[],
): Promise<{ redirectTo: string }> {
  if (!(await isConsentBound(gateway.storage, challenge, nonces))) throw consentNotBound();
  const rejected = await idp(() =>
    gateway.hydra.rejectConsent(challenge, {
      error: "access_denied",
      error_description: "The resource owner denied the request",
      status_code: 403,
    }),
  );
  if (rejected.kind === "not_found") throw consentNotFound();
  return { redirectTo: rejected.redirectTo };
}

/**
 * The side effects of an accepted consent: the `_app` join (the hook), then the welcome credit and the
 * `consent.accepted` event in one transaction. Best effort for consent's answer, which never waits on
 * another process's write lock: each is tried at once, and if the database is busy, again in the
 * background (waiting for the lock like any write); a sign-in runs the same idempotent effects
 * (`ensureSignInEffects`), so none is ever lost and, by construction (a join is idempotent, the welcome
 * grant unique per user), none happens twice. Returns whether the credit was granted by this call.
 */
async function afterConsent(gateway: Gateway, request: ConsentRequest): Promise<boolean> {
  const { subject } = request;
  const clientId = request.client.client_id;
  const now = { waitMs: 0 };
  const join = async (options?: TransactionOptions) => {
    await gateway.consentHooks.joinAppResource(subject, clientId, options);
  };
  const record = (options?: TransactionOptions) =>
    recordConsent(
      gateway.storage,
      gateway.deleted,
      subject,
      clientId,
      gateway.config.welcomeCreditMicros,
      options,
    );
  const failed = (what: string) => (error: unknown) =>
    gateway.log("warn", `${what} after consent failed`, {
      userId: subject,
      clientId,
      error: (error as Error).name,
    });
  // Tried at once; what the busy database refused is tried again in the background, after the answer.
  const later: Array<() => Promise<unknown>> = [];
  try {
    await join(now);
  } catch (error) {
    if (!isBusy(error)) failed("app join")(error);
    else later.push(() => join().catch(failed("app join")));
  }
  let welcomed = false;
  try {
    welcomed = await record(now);
  } catch (error) {
    if (!isBusy(error)) failed("welcome credit")(error);
    else later.push(() => record().catch(failed("welcome credit")));
  }
  if (later.length > 0)
    void (async () => {
      for (const retry of later) await retry();
    })();
  return welcomed;
}

/**
 * What consent would have done, made sure of at sign-in: the user is an active member of the client's
 * app `_app` resource and has received the welcome credit. Idempotent; a consent whose side effects
 * could not be applied (a busy or failing database) is completed here.
 */
export async function ensureSignInEffects(gateway: Gateway, userId: string, clientId: string): Promise<void> {
  try {
    await gateway.consentHooks.joinAppResource(userId, clientId);
    await grantWelcomeCredit(gateway.storage, gateway.deleted, userId, gateway.config.welcomeCreditMicros);
  } catch (error) {
    gateway.log("warn", "sign-in side effects failed", { userId, clientId, error: (error as Error).name });
  }
}
