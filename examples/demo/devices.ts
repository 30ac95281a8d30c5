/**
 * "My devices": the signed-in person's live sessions in this app (one per browser or device), each
 * with its own "Sign out", and "Sign out my other devices". The list is what the gateway says now:
 * it is reloaded with everything else after each action.
 */
import type { OwnSession } from "../../packages/sdk/src/index.ts";
import { gateway } from "./client.ts";
import { $, actionButton, el, Latest } from "./ui.ts";

const loads = new Latest();

const when = (iso: string) => new Date(iso).toLocaleString();

function sessionItem(session: OwnSession): HTMLLIElement {
  const item = el(
    "li",
    { data: { session: session.id } },
    el("strong", { text: session.device }),
    ` ${session.clientId} · signed in ${when(session.createdAt)} · last seen ${when(session.lastSeenAt)} `,
  );
  if (session.current) item.append(el("em", { text: "(this device)" }));
  else
    item.append(
      actionButton("Sign out", "revoke-session", async () => {
        await gateway.auth.revokeSession(session.id);
        return `Signed out ${session.device}.`;
      }),
    );
  return item;
}

export async function loadDevices(): Promise<void> {
  const ticket = loads.next();
  const sessions = await gateway.auth.listSessions();
  if (!loads.isCurrent(ticket)) return;
  $("devices").replaceChildren(...sessions.map(sessionItem));
}

export async function signOutOthers(): Promise<string> {
  const ended = await gateway.auth.signOutOthers();
  return ended === 0
    ? "No other device was signed in."
    : `Signed out ${ended} other device${ended === 1 ? "" : "s"}.`;
}

export function clearDevices(): void {
  loads.invalidate();
  $("devices").replaceChildren();
}
