/**
 * Who is calling: a bearer token (validated through the 60 s cache; no CSRF header
 * needed) or the session cookie (a state-changing call must carry `X-Service-Csrf: 1`). A cookie whose
 * access token has expired answers 401 so the SDK refreshes once and retries; `/auth/session` still
 * reports such a session as signed in. A bearer token the cache has not seen costs a provider call,
 * so the calls those misses start are paced per client address (token-checks.ts: a wait, never a
 * refusal); cache hits, and requests that join a call already in flight for the same token, are free.
 *
 * A deleted account is refused with 403 `account_deleted`, whichever credential it presents: a bearer
 * token is asked about on every call, cache hit or not (the provider may still accept it), and so is one
 * the provider refuses once the deletion has dropped its cached check (token-cache.ts), and a cookie
 * whose session the deletion ended says so where it would otherwise be 401 (accounts/pseudonym.ts).
 */

import { requireClient } from "../apps/clients.ts";
import type { Caller } from "../domain/caller.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { idpRefusal } from "../idp/call.ts";
import { IdpUnavailable } from "../idp/hydra.ts";
import { clientAddress } from "./client-address.ts";
import { hasCsrfHeader } from "./csrf.ts";
import { checkOrigin } from "./origin.ts";
import { noteCredential } from "./request-context.ts";

/** The caller as the HTTP side names it (the domain's `Caller`). */
export type Principal = Caller;

/** What `GET /v1/me` answers. */
export function meView(p: Principal) {
  return { userId: p.userId, clientId: p.clientId ?? null, appId: p.appId, via: p.via };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Resolves the caller or throws 401/403/502. Returns synchronously when everything is cached. */
export function resolvePrincipal(gateway: Gateway, request: Request): Principal | Promise<Principal> {
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const match = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
    if (!match) throw new Refusal("unauthenticated");
    return bearerPrincipal(gateway, match[1]!, request);
  }
  const cookieHeader = request.headers.get("cookie");
  if (cookieHeader === null) throw new Refusal("unauthenticated");
  const resolved = gateway.sessions.resolve(cookieHeader);
  return resolved instanceof Promise
    ? resolved.then((found) => cookieCaller(gateway, request, cookieHeader, found))
    : cookieCaller(gateway, request, cookieHeader, resolved);
}

type Resolved = Awaited<ReturnType<Gateway["sessions"]["resolve"]>>;

/** The caller of a resolved session cookie (the closures only where a step waits). */
function cookieCaller(
  gateway: Gateway,
  request: Request,
  cookieHeader: string,
  resolved: Resolved,
): Principal | Promise<Principal> {
  if (!resolved) return refuseSignedOut(gateway, cookieHeader);
  const { userId, clientId, id } = resolved.row;
  noteCredential(request, "cookie", clientId);
  const appId = gateway.apps.appFor(clientId).id;
  checkOrigin(gateway.apps, request, appId);
  if (!SAFE_METHODS.has(request.method) && !hasCsrfHeader(request)) throw new Refusal("csrf_required");
  if (resolved.cookie.aexp <= Date.now()) {
    throw new Refusal("unauthenticated", { about: "access_expired" });
  }
  gateway.store.touch(resolved.row);
  return { userId, clientId, appId, via: "cookie", sessionId: id };
}

/** The caller of a validated bearer token (null: the provider does not know it). */
function bearerCaller(
  gateway: Gateway,
  request: Request,
  token: string,
  found: { userId: string; clientId: string | undefined } | null,
): Principal | Promise<Principal> {
  if (!found) return refuseBearer(gateway, token);
  noteCredential(request, "bearer", found.clientId);
  if (found.clientId !== undefined) requireClient(gateway.apps, found.clientId, "bearer");
  const appId = gateway.apps.appFor(found.clientId).id;
  checkOrigin(gateway.apps, request, appId);
  const principal: Principal = { userId: found.userId, clientId: found.clientId, appId, via: "bearer" };
  const deleted = gateway.deleted.isDeleted(found.userId);
  if (deleted === false) return principal;
  if (deleted === true) throw new Refusal("account_deleted");
  return deleted.then((gone) => {
    if (gone) throw new Refusal("account_deleted");
    return principal;
  });
}

function bearerPrincipal(gateway: Gateway, token: string, request: Request): Principal | Promise<Principal> {
  if (!gateway.hydra.configured) throw new Refusal("unauthenticated");
  const cached = gateway.tokens.peek(token);
  if (cached !== undefined) return bearerCaller(gateway, request, token, cached);
  const address = clientAddress(request, gateway.config.trustedProxies);
  return gateway.tokens
    .validate(token, (ask) => gateway.tokenChecks.check(address, ask, request.signal))
    .then(
      (found) => bearerCaller(gateway, request, token, found),
      (error) => {
        if (error instanceof IdpUnavailable) throw idpRefusal(error);
        // The request ended (client gone, idle timeout) while its check waited: nobody reads this answer.
        if ((error as Error)?.name === "AbortError")
          throw new Refusal("request_timeout", { during: "token_check" });
        throw error;
      },
    );
}

/**
 * A token the provider does not accept: 403 `account_deleted` when the account's deletion dropped this
 * token's cached check (the provider has revoked it since), else 401.
 */
function refuseBearer(gateway: Gateway, token: string): never | Promise<never> {
  const former = gateway.tokens.formerSubject(token);
  const deleted = former === undefined ? false : gateway.deleted.isDeleted(former);
  if (deleted === false) throw new Refusal("unauthenticated");
  if (deleted === true) throw new Refusal("account_deleted");
  return deleted.then((gone) => {
    throw new Refusal(gone ? "account_deleted" : "unauthenticated");
  });
}

/** No live session behind the cookie: 403 `account_deleted` when the deletion ended it, else 401. */
async function refuseSignedOut(gateway: Gateway, cookieHeader: string): Promise<never> {
  const reason = await gateway.sessions.endReason(cookieHeader);
  throw reason === "deleted" ? new Refusal("account_deleted") : new Refusal("unauthenticated");
}
