// The demo app: plain DOM and the SDK. Everything it knows about the gateway is its URL and a client id.
import { createClient, GatewayError } from "../../packages/sdk/src/index.ts";

const config = (await (await fetch("/config.json")).json()) as { gatewayUrl: string; clientId: string };
const gateway = createClient({
  gatewayUrl: config.gatewayUrl,
  clientId: config.clientId,
  redirectUri: `${location.origin}/`,
});

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const item = (text: string, button?: { label: string; onClick: () => Promise<unknown> }) => {
  const li = document.createElement("li");
  li.textContent = text;
  if (button) {
    const b = document.createElement("button");
    b.textContent = button.label;
    b.onclick = () =>
      run(async () => {
        await button.onClick();
        await refresh();
      });
    li.append(" ", b);
  }
  return li;
};

async function run(action: () => Promise<unknown>) {
  $("error").textContent = "";
  try {
    await action();
  } catch (error) {
    $("error").textContent =
      error instanceof GatewayError ? `${error.code}: ${error.message}` : String(error);
  }
}

async function refresh() {
  const session = await gateway.auth.getSession();
  $("user").textContent = session.userId ?? "nobody";
  document.body.dataset.state = session.authenticated ? "signed-in" : "signed-out";
  if (!session.authenticated) return;
  const [mine, invites, page] = await Promise.all([
    gateway.resource.list(),
    gateway.resource.list({ state: "invited" }),
    gateway.resource.browse({ type: "album", limit: 10 }),
  ]);
  $("mine").replaceChildren(...mine.map((r) => item(`${r.name} (${r.type}) ${r.id}`)));
  $("invites").replaceChildren(
    ...invites.map((r) =>
      item(`${r.name} ${r.id}`, { label: "Accept", onClick: () => gateway.resource(r.id).members.accept() }),
    ),
  );
  $("browse").replaceChildren(
    ...page.rows.map((r) =>
      item(`${r.name}: ${r.memberCount} members`, {
        label: "Join",
        onClick: () => gateway.resource(r.id).members.join(),
      }),
    ),
  );
}

$("sign-in").onclick = () => run(() => gateway.auth.signIn());
$("sign-out").onclick = () =>
  run(async () => {
    await gateway.auth.signOut();
    await refresh();
  });
$<HTMLFormElement>("create").onsubmit = (event) => {
  event.preventDefault();
  run(async () => {
    const created = await gateway.resource.create($<HTMLSelectElement>("type").value, {
      name: $<HTMLInputElement>("name").value,
    });
    $("created").textContent = `Created ${created.name} (${created.id})`;
    await refresh();
  });
};
$<HTMLFormElement>("invite").onsubmit = (event) => {
  event.preventDefault();
  run(async () => {
    await gateway
      .resource($<HTMLInputElement>("invite-resource").value)
      .members.invite($<HTMLInputElement>("invite-user").value);
    await refresh();
  });
};

await run(async () => {
  if (new URLSearchParams(location.search).has("code") || new URLSearchParams(location.search).has("error")) {
    await gateway.auth.handleRedirectCallback();
  }
  await refresh();
});
