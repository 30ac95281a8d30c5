// Ory Hydra v2 admin API on top of oidc-provider interactions.
// - login/consent challenges are oidc-provider interaction uids;
// - GET  /admin/oauth2/auth/requests/{login,consent}   → Hydra's request shapes (404 unknown,
//   410 {redirect_to: request_url} once accepted/rejected, as Hydra's flow table does);
// - PUT  …/{login,consent}/{accept,reject}               → {redirect_to: {issuer}/interaction/<uid>/finish};
//   a second accept/reject of a handled challenge also answers 410 {redirect_to: request_url};
// - GET  /interaction/<uid>/finish (browser)             → applies the stored decision and
//   resumes the authorization (oidc-provider's interactionResult, done on the model directly);
// - POST /admin/oauth2/introspect                        → Hydra's introspectedOAuth2Token.
import type Provider from "oidc-provider";
import { hydraError, json, objectOr, readJsonObject, redirect, stringArray } from "./http.ts";
import { INJECTED_PROMPT_PARAM } from "./provider.ts";
import type { ChallengeRecord, ConsentDecision, Decision, DevIdpState } from "./state.ts";

export interface HydraContext {
  provider: Provider;
  state: DevIdpState;
  issuer: string;
  consentUrl: string;
}

type Interaction = InstanceType<Provider["Interaction"]>;
type Kind = ChallengeRecord["kind"];
type Lookup =
  | { ok: true; interaction: Interaction; record: ChallengeRecord }
  | { ok: false; response: Response };

const nowSeconds = () => Math.floor(Date.now() / 1000);

function requestUrlOf(issuer: string, params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  const original = params[INJECTED_PROMPT_PARAM]; // the client's own prompt ("-" = none sent)
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== "string" || key === INJECTED_PROMPT_PARAM) continue;
    if (key === "prompt" && typeof original === "string") {
      if (original !== "-") query.set(key, original);
    } else query.set(key, value);
  }
  return `${issuer}/oauth2/auth?${query}`;
}

async function findInteraction(provider: Provider, uid: string): Promise<Interaction | undefined> {
  try {
    return (await provider.Interaction.find<Interaction>(uid)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Resolves a challenge the way Hydra's flow table does: 404 unknown, 410 already handled. */
async function lookup(ctx: HydraContext, uid: string | null, kind: Kind): Promise<Lookup> {
  const notFound = (): Lookup => ({
    ok: false,
    response: hydraError(404, "Not Found", `Unable to locate the requested ${kind} challenge.`),
  });
  if (!uid) return notFound();
  const known = ctx.state.challenges.get(uid);
  if (known && known.kind !== kind) return notFound();
  if (known?.decision) return { ok: false, response: json({ redirect_to: known.requestUrl }, 410) };
  const interaction = await findInteraction(ctx.provider, uid);
  if (!interaction || interaction.prompt.name !== kind) return notFound();
  const record = known ?? { kind, requestUrl: requestUrlOf(ctx.issuer, interaction.params) };
  ctx.state.challenges.set(uid, record);
  return { ok: true, interaction, record };
}

function challengeParam(url: URL, kind: Kind): string | null {
  return url.searchParams.get(`${kind}_challenge`) ?? url.searchParams.get("challenge");
}

function requestedScopes(interaction: Interaction): string[] {
  const scope = interaction.params.scope;
  return typeof scope === "string" ? scope.split(" ").filter(Boolean) : [];
}

function requestedAudience(interaction: Interaction): string[] {
  const audience = interaction.params.audience;
  return typeof audience === "string" ? audience.split(" ").filter(Boolean) : [];
}

async function clientInfo(ctx: HydraContext, interaction: Interaction) {
  const clientId = String(interaction.params.client_id ?? "");
  const client = await ctx.provider.Client.find(clientId);
  return {
    client_id: clientId,
    client_name: client?.clientName ?? "",
    redirect_uris: client?.redirectUris ?? [],
    grant_types: client?.grantTypes ?? [],
    response_types: client?.responseTypes ?? [],
    scope: "openid offline_access offline profile email",
    token_endpoint_auth_method: client?.tokenEndpointAuthMethod ?? "none",
    skip_consent: false,
    client_secret: "",
  };
}

function finishUrl(ctx: HydraContext, uid: string): string {
  return `${ctx.issuer}/interaction/${encodeURIComponent(uid)}/finish`;
}

/** Stores a decision for a pending challenge and returns Hydra's `{redirect_to}` answer. */
export async function decide(ctx: HydraContext, uid: string | null, kind: Kind, decision: Decision) {
  const found = await lookup(ctx, uid, kind);
  if (!found.ok) return found.response;
  found.record.decision = decision;
  return json({ redirect_to: finishUrl(ctx, found.interaction.uid) });
}

export async function getLoginRequest(ctx: HydraContext, url: URL): Promise<Response> {
  const found = await lookup(ctx, challengeParam(url, "login"), "login");
  if (!found.ok) return found.response;
  const { interaction, record } = found;
  return json({
    challenge: interaction.uid,
    skip: false,
    subject: "",
    client: await clientInfo(ctx, interaction),
    request_url: record.requestUrl,
    requested_scope: requestedScopes(interaction),
    requested_access_token_audience: requestedAudience(interaction),
    session_id: interaction.session?.uid ?? "",
    oidc_context: {},
  });
}

export async function getConsentRequest(ctx: HydraContext, url: URL): Promise<Response> {
  const found = await lookup(ctx, challengeParam(url, "consent"), "consent");
  if (!found.ok) return found.response;
  const { interaction, record } = found;
  const subject = interaction.session?.accountId ?? "";
  const clientId = String(interaction.params.client_id ?? "");
  const scopes = requestedScopes(interaction);
  const forced =
    interaction.params[INJECTED_PROMPT_PARAM] === undefined &&
    String(interaction.params.prompt ?? "")
      .split(" ")
      .includes("consent");
  return json({
    challenge: interaction.uid,
    consent_request_id: interaction.uid,
    subject,
    requested_scope: scopes,
    requested_access_token_audience: requestedAudience(interaction),
    skip: !forced && subject !== "" && ctx.state.covered(subject, clientId, scopes),
    client: await clientInfo(ctx, interaction),
    login_challenge: ctx.state.loginChallengeByCid.get(interaction.cid) ?? "",
    login_session_id: interaction.session?.uid ?? "",
    request_url: record.requestUrl,
    oidc_context: {},
    context: {},
    acr: interaction.session?.acr ?? "0",
    amr: interaction.session?.amr ?? [],
  });
}

function rejectDecision(body: Record<string, unknown>): Decision {
  return {
    kind: "reject",
    error: typeof body.error === "string" && body.error !== "" ? body.error : "access_denied",
    errorDescription:
      typeof body.error_description === "string"
        ? body.error_description
        : "The resource owner denied the request",
  };
}

export async function acceptLogin(ctx: HydraContext, url: URL, request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  const subject = body?.subject;
  if (!body || typeof subject !== "string" || subject === "") {
    return hydraError(400, "invalid_request", "Field 'subject' must be a non-empty string.");
  }
  return decide(ctx, challengeParam(url, "login"), "login", {
    kind: "login",
    subject,
    remember: body.remember === true,
  });
}

export async function acceptConsent(ctx: HydraContext, url: URL, request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  if (!body) return hydraError(400, "invalid_request", "The request body must be a JSON object.");
  const session = objectOr(body.session);
  const decision: ConsentDecision = {
    kind: "consent",
    grantScope: stringArray(body.grant_scope),
    audience: stringArray(body.grant_access_token_audience),
    remember: body.remember === true,
    rememberFor: typeof body.remember_for === "number" ? body.remember_for : 0,
    idToken: objectOr(session.id_token),
    accessToken: objectOr(session.access_token),
  };
  return decide(ctx, challengeParam(url, "consent"), "consent", decision);
}

export async function reject(ctx: HydraContext, url: URL, request: Request, kind: Kind): Promise<Response> {
  const body = (await readJsonObject(request)) ?? {};
  return decide(ctx, challengeParam(url, kind), kind, rejectDecision(body));
}

/** GET /interaction/<uid>: oidc-provider's interaction URL; forwards the browser like Hydra would. */
export async function dispatchInteraction(ctx: HydraContext, uid: string): Promise<Response> {
  const interaction = await findInteraction(ctx.provider, uid);
  if (!interaction) return hydraError(404, "Not Found", "Unknown or expired interaction.");
  const kind: Kind = interaction.prompt.name === "login" ? "login" : "consent";
  if (!ctx.state.challenges.has(uid)) {
    ctx.state.challenges.set(uid, { kind, requestUrl: requestUrlOf(ctx.issuer, interaction.params) });
  }
  if (kind === "login") return redirect(`${ctx.issuer}/login?login_challenge=${encodeURIComponent(uid)}`);
  const target = new URL(ctx.consentUrl);
  target.searchParams.set("consent_challenge", uid);
  return redirect(target.toString());
}

/** GET /interaction/<uid>/finish: the browser comes back from the admin accept/reject's redirect_to. */
export async function finishInteraction(ctx: HydraContext, uid: string): Promise<Response> {
  const record = ctx.state.challenges.get(uid);
  const interaction = await findInteraction(ctx.provider, uid);
  const decision = record?.decision;
  if (!interaction || !decision) {
    return hydraError(404, "Not Found", "Unknown, unhandled or already finished interaction.");
  }
  const { provider, state } = ctx;
  if (decision.kind === "reject") {
    interaction.result = { error: decision.error, error_description: decision.errorDescription };
  } else if (decision.kind === "login") {
    const previous = interaction.session;
    if (previous?.accountId && previous.accountId !== decision.subject) {
      // A different user logs in on this browser: drop the old session (Hydra would
      // simply start a new one) instead of oidc-provider's logout confirmation page.
      const session = previous.uid ? await provider.Session.findByUid(previous.uid) : undefined;
      await session?.destroy();
      interaction.session = undefined;
    }
    state.loginChallengeByCid.set(interaction.cid, uid);
    interaction.result = { login: { accountId: decision.subject, remember: decision.remember } };
  } else {
    const accountId = interaction.session?.accountId;
    const clientId = String(interaction.params.client_id ?? "");
    if (!accountId) return hydraError(400, "invalid_request", "The consent has no authenticated subject.");
    const requested = new Set(requestedScopes(interaction));
    const granted = decision.grantScope.filter((s) => requested.has(s));
    const grant = new provider.Grant({ accountId, clientId });
    if (granted.length > 0) grant.addOIDCScope(granted.join(" "));
    const grantId = await grant.save();
    state.grantExtras.set(grantId, {
      idToken: decision.idToken,
      accessToken: decision.accessToken,
      audience: decision.audience,
    });
    if (decision.remember) state.remember(accountId, clientId, granted, decision.rememberFor);
    interaction.result = { ...interaction.lastSubmission, consent: { grantId } };
  }
  await interaction.save(Math.max(interaction.exp - nowSeconds(), 1));
  return redirect(interaction.returnTo);
}

/** POST /admin/oauth2/introspect (Hydra admin API). */
export async function introspect(ctx: HydraContext, request: Request): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const token = form.get("token");
  if (!token) return hydraError(400, "invalid_request", "The POST body can not be empty.");
  const wanted = (form.get("scope") ?? "").split(" ").filter(Boolean);
  const { provider, state } = ctx;
  const safe = async <T>(fn: () => Promise<T>) => {
    try {
      return await fn();
    } catch {
      return undefined;
    }
  };
  const at = await safe(() => provider.AccessToken.find(token));
  const rt = at ? undefined : await safe(() => provider.RefreshToken.find(token));
  const found = at ?? (rt && !rt.consumed ? rt : undefined);
  if (!found || found.isExpired || !wanted.every((s) => found.scopes.has(s))) return json({ active: false });
  const extras = found.grantId ? state.grantExtras.get(found.grantId) : undefined;
  const ext = at && extras && Object.keys(extras.accessToken).length > 0 ? extras.accessToken : undefined;
  return json({
    active: true,
    sub: found.accountId,
    client_id: found.clientId,
    exp: found.exp,
    iat: found.iat,
    nbf: found.iat,
    scope: found.scope ?? "",
    token_use: at ? "access_token" : "refresh_token",
    token_type: "Bearer",
    iss: ctx.issuer,
    aud: extras?.audience ?? [],
    ...(ext ? { ext } : {}),
  });
}
