// The dev IdP's own login UI, playing the part of a Hydra "login app": it shows a
// username form for `?login_challenge=`, and on POST accepts the login through the
// same code path as Hydra's `PUT /admin/oauth2/auth/requests/login/accept`
// (subject = username, remember = false), then sends the browser to `redirect_to`. It shares the
// gateway's page look (server/http/page.ts), so a development sign-in looks like one product.

import { escapeHtml, pageResponse, renderPage } from "../server/http/page.ts";
import { redirect } from "./http.ts";
import { decide, type HydraContext } from "./hydra-admin.ts";

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

function page(challenge: string, message: string | undefined, status: number): Response {
  const error = message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : "";
  const body = `<p class="warning"><strong>Development identity provider — not for production.</strong> Any username signs in; there is no password.</p>
<h1>Sign in</h1>
${error}
<form method="post" action="/login">
<input type="hidden" name="login_challenge" value="${escapeHtml(challenge)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autofocus required pattern="[A-Za-z0-9._@\\-]{1,64}">
<p class="actions"><button class="primary" type="submit">Sign in</button></p>
</form>`;
  // The form posts here and is redirected on to the gateway: no form-action (Chromium checks redirects).
  const rendered = renderPage(
    { title: "Development identity provider: sign in", brand: "Development identity provider", body },
    { formAction: false },
  );
  return pageResponse(rendered, status);
}

/** GET /login?login_challenge=… */
export async function showLogin(ctx: HydraContext, url: URL): Promise<Response> {
  const challenge = url.searchParams.get("login_challenge") ?? "";
  const interaction = challenge
    ? await ctx.provider.Interaction.find<InstanceType<typeof ctx.provider.Interaction>>(challenge).catch(
        () => undefined,
      )
    : undefined;
  if (interaction?.prompt.name !== "login" || ctx.state.challenges.get(challenge)?.decision) {
    return page(challenge, "This login request is unknown, expired or already used. Start again.", 404);
  }
  return page(challenge, undefined, 200);
}

/** POST /login (form-urlencoded: login_challenge, username) */
export async function submitLogin(ctx: HydraContext, request: Request): Promise<Response> {
  const form = new URLSearchParams(await request.text());
  const challenge = form.get("login_challenge") ?? "";
  const username = (form.get("username") ?? "").trim();
  if (!USERNAME.test(username)) {
    return page(challenge, "Username must be 1–64 characters: letters, digits, '.', '_', '@' or '-'.", 400);
  }
  const answer = await decide(ctx, challenge, "login", { kind: "login", subject: username, remember: false });
  if (answer.status !== 200) {
    return page(
      challenge,
      "This login request is unknown, expired or already used. Start again.",
      answer.status,
    );
  }
  const { redirect_to } = (await answer.json()) as { redirect_to: string };
  return redirect(redirect_to);
}
