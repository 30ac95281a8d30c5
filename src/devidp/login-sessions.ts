// Hydra's `DELETE /admin/oauth2/auth/sessions/login?sid=` (v2.1 and later): ends one login session and
// sends a back-channel logout to every client that used it (with the client's `backchannel_logout_uri`),
// with oidc-provider's own logout tokens. Hydra names a login session by the `sid` its ID tokens carry;
// oidc-provider gives each client of a session its own `sid`, so any of them names the session. Unlike
// Hydra, which does not wait for the clients, this waits for their answers (tests read the result at once).
// `?subject=` (all of a subject's sessions) sends no logout at Hydra, and is not offered here.
import type Provider from "oidc-provider";
import type { MemoryStore } from "./adapter.ts";
import { hydraError } from "./http.ts";

interface LogoutClient {
  backchannelLogoutUri?: string;
  backchannelLogout(sub: string, sid: string | undefined): Promise<void>;
}

export async function deleteLoginSession(
  provider: Provider,
  store: MemoryStore,
  url: URL,
): Promise<Response> {
  const sid = url.searchParams.get("sid");
  if (!sid) return hydraError(400, "invalid_request", "Name the login session: ?sid=.");
  const id = store.findSessionId((payload) =>
    Object.values((payload.authorizations ?? {}) as Record<string, { sid?: string }>).some(
      (authorization) => authorization.sid === sid,
    ),
  );
  const session = id ? await provider.Session.find(id) : undefined;
  if (!session) return hydraError(404, "Not Found", "No such login session.");
  await Promise.all(
    Object.keys(session.authorizations ?? {}).map(async (clientId) => {
      // oidc-provider's types omit the method its end_session calls.
      const client = (await provider.Client.find(clientId)) as unknown as LogoutClient | undefined;
      if (client?.backchannelLogoutUri && session.accountId)
        await client.backchannelLogout(session.accountId, session.sidFor(clientId)).catch(() => {}); // a client's refusal is the client's
    }),
  );
  await session.destroy();
  return new Response(null, { status: 204 });
}
