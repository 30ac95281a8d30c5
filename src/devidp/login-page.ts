// The dev IdP's own login UI, playing the part of a Hydra "login app": it shows a
// username form for `?login_challenge=`, and on POST accepts the login through the
// same code path as Hydra's `PUT /admin/oauth2/auth/requests/login/accept`
// (subject = username, remember = false), then sends the browser to `redirect_to`.

import { redirect } from "./http.ts";
import { decide, type HydraContext } from "./hydra-admin.ts";
import { escapeHtml } from "./provider.ts";

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

function page(challenge: string, message: string | undefined, status: number): Response {
  const error = message ? `<p role="alert" style="color:#b00020">${escapeHtml(message)}</p>` : "";
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Development identity provider — sign in</title></head>
<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">
<p style="background:#ffe08a;padding:.5rem;border:2px solid #b07d00"><strong>Development identity provider — not for production.</strong> Any username signs in; there is no password.</p>
<h1>Sign in</h1>
${error}
<form method="post" action="/login">
<input type="hidden" name="login_challenge" value="${escapeHtml(challenge)}">
<label>Username <input type="text" name="username" autofocus required pattern="[A-Za-z0-9._@\\-]{1,64}"></label>
<button type="submit">Sign in</button>
</form>
</body>
</html>`;
  return new Response(html, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
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
