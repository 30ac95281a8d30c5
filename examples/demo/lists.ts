/**
 * The signed-in user's lists: my resources (active memberships, without the app's own `_app`), invites
 * waiting for my answer, my requests waiting for an admin, and browse (discoverable resources, searched
 * by name, a page at a time through the gateway's cursor). Each list is painted only by its newest load.
 */
import type { BrowseItem, RequestedView, ResourceView } from "../../packages/sdk/src/index.ts";
import { APP_RESOURCE_TYPE, gateway } from "./client.ts";
import { $, actionButton, el, Latest } from "./ui.ts";

/** Small on purpose, so a handful of resources already shows the paging. */
export const BROWSE_PAGE_SIZE = 3;

type Visibility = "members" | "unlisted" | "discoverable";

export const VISIBILITY_WORDS: Record<Visibility, string> = {
  members: "members only",
  unlisted: "unlisted: anyone with its id may join",
  discoverable: "discoverable: listed in Browse",
};

export const memberCount = (n: number) => `${n} member${n === 1 ? "" : "s"}`;

export function visibilityOf(resource: Pick<ResourceView, "visibility" | "discoverable">): Visibility {
  if (resource.visibility === "members") return "members";
  return resource.discoverable ? "discoverable" : "unlisted";
}

const lists = new Latest();
const browseLoads = new Latest();
/** My pending memberships as the lists last showed them: the resource panel reads them. */
const pending = new Map<string, "invited" | "requested">();

export function pendingStateOf(resourceId: string): "invited" | "requested" | undefined {
  return pending.get(resourceId);
}

/** An "Open" button; app.ts opens the resource (one listener for every list). */
export function openButton(resourceId: string): HTMLButtonElement {
  const button = el("button", { text: "Open", data: { open: resourceId } });
  button.type = "button";
  return button;
}

function resourceItem(resourceId: string, text: string, ...buttons: HTMLButtonElement[]) {
  const item = el("li", { data: { resourceId } }, el("span", { text }), " ");
  item.append(...buttons.flatMap((button) => [button, " "]));
  return item;
}

function mineItem(resource: ResourceView) {
  const visibility = visibilityOf(resource);
  const item = resourceItem(
    resource.id,
    `${resource.name} (${resource.type}, ${VISIBILITY_WORDS[visibility]})`,
    openButton(resource.id),
  );
  item.dataset.visibility = visibility;
  return item;
}

function inviteItem(resource: ResourceView) {
  const members = gateway.resource(resource.id).members;
  return resourceItem(
    resource.id,
    `${resource.name} (${resource.type})`,
    actionButton("Accept", "accept-invite", async () => {
      await members.accept();
      return `You joined ${resource.name}.`;
    }),
    actionButton("Decline", "reject-invite", async () => {
      await members.reject();
      return `You declined the invite to ${resource.name}.`;
    }),
    openButton(resource.id),
  );
}

function requestItem(resource: ResourceView | RequestedView) {
  const name = "name" in resource ? resource.name : `a members-only ${resource.type}`;
  return resourceItem(
    resource.id,
    `${name} (waiting for an admin)`,
    actionButton("Withdraw", "withdraw-request", async () => {
      await gateway.resource(resource.id).members.leave();
      return `You withdrew your request to join ${name}.`;
    }),
    openButton(resource.id),
  );
}

/** Loads and paints my resources, my invites and my requests. */
export async function loadLists(): Promise<void> {
  const ticket = lists.next();
  const [mine, invites, requests] = await Promise.all([
    gateway.resource.list(),
    gateway.resource.list({ state: "invited" }),
    gateway.resource.list({ state: "requested" }),
  ]);
  if (!lists.isCurrent(ticket)) return;
  pending.clear();
  for (const resource of invites) pending.set(resource.id, "invited");
  for (const resource of requests) pending.set(resource.id, "requested");
  $("mine").replaceChildren(...mine.filter((r) => r.type !== APP_RESOURCE_TYPE).map(mineItem));
  $("invites").replaceChildren(...invites.map(inviteItem));
  $("requests").replaceChildren(...requests.map(requestItem));
}

/** Where browse is: the search, the cursor of the page shown (null: the first) and the next one. */
const browsing = {
  type: "",
  query: "",
  cursor: null as string | null,
  next: null as string | null,
  page: 1,
};

function browseItem(item: BrowseItem) {
  return resourceItem(
    item.id,
    `${item.name} (${item.type}, ${memberCount(item.memberCount)})`,
    openButton(item.id),
    actionButton("Join", "join", async () => {
      const { joined } = await gateway.resource(item.id).members.join();
      return joined
        ? `You joined ${item.name}.`
        : `You already are a member of ${item.name}; nothing changed.`;
    }),
  );
}

/** Loads and paints the browse page `browsing` points at. */
export async function loadBrowse(): Promise<void> {
  const ticket = browseLoads.next();
  const page = await gateway.resource.browse({
    type: browsing.type || undefined,
    query: browsing.query || undefined,
    limit: BROWSE_PAGE_SIZE,
    cursor: browsing.cursor,
  });
  if (!browseLoads.isCurrent(ticket)) return;
  browsing.next = page.nextCursor;
  $("browse").replaceChildren(...page.resources.map(browseItem));
  $("browse-page").textContent = `Page ${browsing.page}`;
  $("browse-next").hidden = !page.nextCursor;
  $("browse-first").hidden = browsing.page === 1;
}

/** A new search starts at the first page. */
export function searchBrowse(type: string, query: string): Promise<void> {
  Object.assign(browsing, { type, query, cursor: null, next: null, page: 1 });
  return loadBrowse();
}

export function nextBrowsePage(): Promise<void> {
  if (!browsing.next) return Promise.resolve();
  Object.assign(browsing, { cursor: browsing.next, next: null, page: browsing.page + 1 });
  return loadBrowse();
}

export function firstBrowsePage(): Promise<void> {
  return searchBrowse(browsing.type, browsing.query);
}

/** Forgets everything the lists showed; loads in flight will not paint. */
export function clearLists(): void {
  lists.invalidate();
  browseLoads.invalidate();
  pending.clear();
  Object.assign(browsing, { type: "", query: "", cursor: null, next: null, page: 1 });
  for (const id of ["mine", "invites", "requests", "browse"]) $(id).replaceChildren();
  $("browse-page").textContent = "";
  $("browse-next").hidden = true;
  $("browse-first").hidden = true;
}
