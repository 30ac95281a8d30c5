/**
 * One open resource: what it is, what I am in it, the buttons for what I may try from there, and its
 * roster (active members only may read it) with an admin's controls on each row. Buttons a rule would
 * refuse are still shown where the refusal teaches something (the owner's Leave, a member's Delete);
 * the gateway decides and the page says its answer in words.
 */
import {
  GatewayError,
  type MemberEntry,
  type ResourceView,
  type Role,
} from "../../packages/sdk/src/index.ts";
import { gateway, viewer } from "./client.ts";
import { memberCount, pendingStateOf, VISIBILITY_WORDS, visibilityOf } from "./lists.ts";
import { $, actionButton, el, Latest } from "./ui.ts";

type Mine = { state: "active"; role: Role } | { state: "invited" | "requested" | "none" };

const STATE_WORDS = { active: "active", invited: "invited, not answered yet", requested: "asked to join" };
const GRANTABLE: Role[] = ["reader", "writer", "admin"];

const loads = new Latest();
let openId: string | null = null;

export function openResource(resourceId: string): Promise<void> {
  openId = resourceId;
  return loadResource();
}

export function closeResource(): void {
  loads.invalidate();
  openId = null;
  $("resource").hidden = true;
  $("resource").dataset.resourceId = "";
  for (const id of ["resource-name", "resource-facts", "resource-membership", "roster-note"])
    $(id).textContent = "";
  $("resource-actions").replaceChildren();
  $("roster").replaceChildren();
  $<HTMLFormElement>("invite").reset();
  $("invite").hidden = true;
}

/** Null when the gateway answers as for a resource that does not exist (or I may not see). */
async function orNull<T>(call: Promise<T>, codes: string[]): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof GatewayError && codes.includes(error.code)) return null;
    throw error;
  }
}

/** Loads and paints the open resource (nothing when none is open). */
export async function loadResource(): Promise<void> {
  if (!openId) return;
  const resourceId = openId;
  const ticket = loads.next();
  const handle = gateway.resource(resourceId);
  const view = await orNull(handle.get(), ["not_found"]);
  const roster = view ? await orNull(handle.members.list(), ["not_found", "forbidden"]) : null;
  if (!loads.isCurrent(ticket)) return;
  paintResource(resourceId, view, roster);
}

function myMembership(resourceId: string, roster: MemberEntry[] | null): Mine {
  const me = roster?.find((member) => member.userId === viewer.userId && member.state === "active");
  if (me) return { state: "active", role: me.role };
  return { state: pendingStateOf(resourceId) ?? "none" };
}

const isAdmin = (mine: Mine) => mine.state === "active" && (mine.role === "admin" || mine.role === "owner");

function paintResource(resourceId: string, view: ResourceView | null, roster: MemberEntry[] | null) {
  const mine = myMembership(resourceId, roster);
  $("resource").hidden = false;
  $("resource").dataset.resourceId = resourceId;
  $("resource-name").textContent = view ? view.name : "A resource you cannot see";
  $("resource-facts").textContent = view
    ? `${view.type}, ${VISIBILITY_WORDS[visibilityOf(view)]}, ${memberCount(view.memberCount ?? 0)}. Id: ${resourceId}`
    : `It is members-only (or does not exist); you can ask to join. Id: ${resourceId}`;
  $("resource-membership").textContent = membershipWords(mine);
  $("resource").dataset.myState = mine.state;
  $("resource-actions").replaceChildren(...myActions(resourceId, view, mine));
  $("invite").hidden = !isAdmin(mine);
  $("roster-note").textContent = roster ? "" : "Only active members see who is in it.";
  $("roster").replaceChildren(...(roster ?? []).map((member) => rosterRow(resourceId, member, mine)));
}

function membershipWords(mine: Mine): string {
  if (mine.state === "active") return mine.role === "owner" ? "You own it." : `Your role here: ${mine.role}.`;
  if (mine.state === "invited") return "You are invited: accept or decline below.";
  if (mine.state === "requested") return "You asked to join; an admin will answer.";
  return "You are not a member.";
}

function myActions(resourceId: string, view: ResourceView | null, mine: Mine): HTMLButtonElement[] {
  const members = gateway.resource(resourceId).members;
  const name = view?.name ?? "the resource";
  if (mine.state === "invited")
    return [
      actionButton("Accept invite", "accept-invite", async () => {
        await members.accept();
        return `You joined ${name}.`;
      }),
      actionButton("Decline invite", "reject-invite", async () => {
        await members.reject();
        return `You declined the invite to ${name}.`;
      }),
    ];
  if (mine.state === "requested")
    return [
      actionButton("Withdraw request", "withdraw-request", async () => {
        await members.leave();
        return `You withdrew your request to join ${name}.`;
      }),
    ];
  if (mine.state === "active")
    return [
      actionButton("Leave", "leave", async () => {
        await members.leave();
        return `You left ${name}.`;
      }),
      actionButton("Delete", "delete", async () => askToDelete(resourceId, name), { repaint: false }),
    ];
  const request = actionButton("Request to join", "request", async () => {
    await members.request();
    return `You asked to join ${name}; an admin will answer.`;
  });
  if (view?.visibility !== "public") return [request];
  const join = actionButton("Join", "join", async () => {
    const { joined } = await members.join();
    return joined ? `You joined ${name}.` : `You already are a member of ${name}; nothing changed.`;
  });
  return [join, request];
}

/**
 * As the TUI does: deleting takes the resource and everything linked to it, so the page asks first,
 * in place of the buttons; only "Delete for good" deletes. Either answer repaints the buttons.
 */
async function askToDelete(resourceId: string, name: string): Promise<undefined> {
  $("resource-actions").replaceChildren(
    el("strong", { text: `Delete ${name} and everything in it? This cannot be undone.` }),
    " ",
    actionButton("Delete for good", "confirm-delete", async () => {
      await gateway.resource(resourceId).delete();
      closeResource();
      return `Deleted ${name}.`;
    }),
    actionButton("Keep it", "cancel-delete", async () => `Nothing was deleted: ${name} is still here.`),
  );
  return undefined;
}

function rosterRow(resourceId: string, member: MemberEntry, mine: Mine): HTMLLIElement {
  const you = member.userId === viewer.userId ? " (you)" : "";
  const row = el(
    "li",
    { data: { userId: member.userId, role: member.role, state: member.state } },
    el("span", { text: `${member.userId}${you}: ${member.role}, ${STATE_WORDS[member.state]}` }),
  );
  if (isAdmin(mine) && !you) row.append(" ", ...adminControls(resourceId, member));
  return row;
}

/** What an admin may try on someone else's row (the owner's row too: the gateway refuses in words). */
function adminControls(resourceId: string, member: MemberEntry): Array<HTMLElement | string> {
  const members = gateway.resource(resourceId).members;
  const who = member.userId;
  if (member.state === "requested")
    return [
      actionButton("Accept request", "accept-request", async () => {
        await members.accept(who);
        return `${who} is now a member.`;
      }),
      " ",
      actionButton("Reject request", "reject-request", async () => {
        await members.reject(who);
        return `You turned down ${who}'s request.`;
      }),
    ];
  if (member.state === "invited")
    return [
      actionButton("Cancel invite", "remove", async () => {
        await members.remove(who);
        return `You cancelled the invite to ${who}.`;
      }),
    ];
  const remove = actionButton("Remove", "remove", async () => {
    await members.remove(who);
    return `Removed ${who}.`;
  });
  if (member.role === "owner") return [remove];
  const role = el("select", { data: { field: "role" } }, ...GRANTABLE.map((r) => el("option", { text: r })));
  role.value = member.role;
  const change = actionButton("Change role", "set-role", async () => {
    await members.setRole(who, role.value as Role);
    return `${who} is now ${role.value}.`;
  });
  return [role, " ", change, " ", remove];
}

/** The invite form: a user id and a role (empty: the type's default role). */
export async function inviteFromForm(): Promise<string> {
  const userId = $<HTMLInputElement>("invite-user").value.trim();
  const role = $<HTMLSelectElement>("invite-role").value as Role | "";
  if (!openId) return "Open a resource first.";
  await gateway.resource(openId).members.invite(userId, role ? { role } : {});
  $<HTMLFormElement>("invite").reset();
  return `Invited ${userId} as ${role || "the type's default role"}. They will see it under "Invites for you".`;
}
