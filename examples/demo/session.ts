/**
 * The page shows the session the gateway reports now, nothing older. When nobody is signed in (signed
 * out, revoked by an operator, expired), nothing of the previous user stays: the lists, the open
 * resource, the messages and whatever was typed are cleared, and loads still in flight will not paint.
 * A revocation is noticed while the page is open: the session is re-checked when the window gets focus
 * or becomes visible and every SESSION_CHECK_MS, and auth.onChange reports a refresh the gateway
 * refused on any call.
 */
import type { SessionEndReason } from "../../packages/sdk/src/index.ts";
import { gateway, viewer } from "./client.ts";
import { clearDevices, loadDevices } from "./devices.ts";
import { clearLists, loadBrowse, loadLists } from "./lists.ts";
import { closeResource, loadResource } from "./resource.ts";
import { $, type Card, clearMessages, complain } from "./ui.ts";
import { sessionWords } from "./words.ts";

export const SESSION_CHECK_MS = 30_000;

/** Asks the gateway who is signed in and shows exactly that. */
export async function checkSession(): Promise<void> {
  const session = await gateway.auth.getSession();
  if (session.authenticated && session.userId) await showUser(session.userId);
  else showNobody(session.reason ?? "no_session");
}

/**
 * A call was refused as unauthenticated: ask the gateway. Gone: show nobody and why. Still there (the
 * call failed for another reason): say the call failed in its card, and do not reload (it could fail the same way).
 */
export async function confirmSessionLost(error: unknown, card: Card): Promise<void> {
  const session = await gateway.auth.getSession();
  if (session.authenticated) complain(card, error);
  else showNobody(session.reason ?? "no_session");
}

/** Reloads everything the signed-in user sees (nothing when nobody is). */
export async function repaint(): Promise<void> {
  if (!viewer.userId) return;
  await Promise.all([loadLists(), loadBrowse(), loadDevices()]);
  await loadResource(); // after the lists: it reads my pending invites and requests from them
}

async function showUser(userId: string): Promise<void> {
  if (viewer.userId !== userId) {
    forgetUser();
    viewer.userId = userId;
    $("user").textContent = userId;
    $("notice").textContent = "";
    $("app").hidden = false;
    document.body.dataset.state = "signed-in";
  }
  await repaint();
}

/** Shows nobody, and why (a session that ended says how; a page that never had one stays quiet). */
export function showNobody(reason: SessionEndReason): void {
  const hadUser = viewer.userId !== null;
  if (hadUser) forgetUser();
  viewer.userId = null;
  $("user").textContent = "";
  $("app").hidden = true;
  document.body.dataset.state = "signed-out";
  if (hadUser || reason !== "no_session") $("notice").textContent = sessionWords(reason);
}

function forgetUser(): void {
  clearLists();
  clearDevices();
  closeResource();
  clearMessages();
  for (const form of document.querySelectorAll("form")) form.reset();
}
