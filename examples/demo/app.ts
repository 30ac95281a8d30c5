/**
 * The demo app: plain DOM and the SDK, every membership flow of the gateway on one page. This file
 * wires the page's controls to the SDK and starts it; session.ts keeps the page truthful about who is
 * signed in, lists.ts and resource.ts paint what that user sees, words.ts says every failure in words.
 */
import { gateway } from "./client.ts";
import { signOutOthers } from "./devices.ts";
import { firstBrowsePage, nextBrowsePage, searchBrowse, VISIBILITY_WORDS, visibilityOf } from "./lists.ts";
import { inviteFromForm, openResource } from "./resource.ts";
import { checkSession, confirmSessionLost, repaint, SESSION_CHECK_MS, showNobody } from "./session.ts";
import { $, act, complain, onActed, report, say } from "./ui.ts";

const value = (id: string) => $<HTMLInputElement | HTMLSelectElement>(id).value.trim();

function onSubmit(formId: string, work: () => Promise<unknown>, repaints = true) {
  const form = $<HTMLFormElement>(formId);
  form.onsubmit = (event) => {
    event.preventDefault();
    act(form, work, { repaint: repaints });
  };
}

async function createResource(): Promise<string> {
  const visibility = value("visibility");
  const created = await gateway.resource.create(value("type"), {
    name: value("name"),
    ...(visibility ? { visibility: visibility as "members" | "unlisted" | "discoverable" } : {}),
  });
  $<HTMLFormElement>("create").reset();
  await openResource(created.id);
  return `Created ${created.name} (${created.type}, ${VISIBILITY_WORDS[visibilityOf(created)]}).`;
}

/** A button of the page (not of a list) that runs `work` through `act`. */
function onClick(id: string, work: () => Promise<unknown>, repaints = true) {
  const button = $(id);
  button.onclick = () => act(button, work, { repaint: repaints });
}

function wireControls(): void {
  onClick("sign-in", () => gateway.auth.signIn(), false);
  onClick("sign-out", () => gateway.auth.signOut(), false);
  onClick("sign-out-everywhere", () => gateway.auth.signOut({ everywhere: true }), false);
  onClick("sign-out-others", signOutOthers);
  onClick("reload", async () => {});
  onSubmit("create", createResource);
  onSubmit("browse-form", () => searchBrowse(value("browse-type"), value("browse-query")), false);
  onClick("browse-next", nextBrowsePage, false);
  onClick("browse-first", firstBrowsePage, false);
  onSubmit("open-form", () => openResource(value("open-id")), false);
  onSubmit("invite", inviteFromForm);
  // Every list's "Open" button (data-open holds the resource id).
  document.addEventListener("click", (event) => {
    const opener = (event.target as Element).closest<HTMLElement>("[data-open]");
    if (opener?.dataset.open) act(opener, () => openResource(opener.dataset.open!), { repaint: false });
  });
}

/** Re-checks the session whenever the person may have come back, and now and then while they stay. */
function watchSession(): void {
  const recheck = () => checkSession().catch(report);
  gateway.auth.onChange((change) => {
    if (change.type === "signed_out") showNobody("signed_out");
    if (change.type === "session_ended") showNobody(change.reason);
  });
  window.addEventListener("focus", recheck);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") recheck();
  });
  setInterval(recheck, SESSION_CHECK_MS);
}

/** Finishes a sign-in if this is the redirect back; a failed or replayed one is said after the truth. */
async function start(): Promise<void> {
  const query = new URLSearchParams(location.search);
  let failedSignIn: unknown;
  let signedOutEverywhere = false;
  try {
    // The provider's redirect back after a sign-out everywhere carries the state this page kept.
    signedOutEverywhere = gateway.auth.handleSignOutCallback();
    if (!signedOutEverywhere && (query.has("code") || query.has("error") || query.has("state")))
      await gateway.auth.handleRedirectCallback();
  } catch (error) {
    failedSignIn = error;
  }
  await checkSession().catch(report);
  if (failedSignIn) complain($("session"), failedSignIn);
  if (signedOutEverywhere) say($("session"), "You are signed out everywhere, at the identity provider too.");
}

onActed({ repaint, sessionLost: confirmSessionLost });
wireControls();
watchSession();
await start();
