/**
 * `resource.*`: the /v1/resources API. `resource(id)` (or `resource.handle(id)`) is a handle with the
 * membership calls; `resource.get(id)` fetches one resource's view.
 */
import type { Transport } from "./transport.ts";
import type {
  BrowseOptions,
  BrowsePage,
  MemberEntry,
  MemberState,
  RequestedView,
  ResourceView,
  Role,
  Visibility,
} from "./types.ts";
import { web } from "./web.ts";

const path = (id: string, action = "") =>
  `/v1/resources/${encodeURIComponent(id)}${action ? `/${action}` : ""}`;

export function resourceHandle(transport: Transport, id: string) {
  const post = <T>(action: string, body?: unknown) =>
    transport.request<T>("POST", path(id, action), { body: body ?? {} });
  return {
    id,
    get: () => transport.request<ResourceView>("GET", path(id)),
    delete: () => transport.request<{ ok: true }>("DELETE", path(id)),
    members: {
      list: async () =>
        (await transport.request<{ members: MemberEntry[] }>("GET", path(id, "members"))).members,
      invite: (userId: string, options: { role?: Role } = {}) =>
        post<{ ok: true; state: "invited" }>("invite", { userId, ...options }),
      request: (options: { role?: Role } = {}) => post<{ ok: true; state: "requested" }>("request", options),
      /** Without a userId: accept your own invite. With one (admin): accept that user's request. */
      accept: (userId?: string) =>
        post<{ ok: true; state: "active" }>("accept", userId === undefined ? {} : { userId }),
      reject: (userId?: string) => post<{ ok: true }>("reject", userId === undefined ? {} : { userId }),
      /** `joined` is false when the caller already was an active member (nothing changed). */
      join: () => post<{ ok: true; state: "active"; joined: boolean }>("join"),
      leave: () => post<{ ok: true }>("leave"),
      setRole: (userId: string, role: Role) => post<{ ok: true; role: Role }>("setRole", { userId, role }),
      remove: (userId: string) => post<{ ok: true }>("remove", { userId }),
    },
    /**
     * The owner offers the resource to an active member (one pending offer per resource: a new one
     * replaces it). Nothing changes until that member calls `acceptOwnership()`.
     */
    transferOwnership: (userId: string) =>
      post<{ ok: true; state: "offered"; userId: string }>("transferOwnership", { userId }),
    /** The member offered accepts: they become the owner and the previous owner an admin, together. */
    acceptOwnership: () => post<{ ok: true; role: "owner" }>("acceptOwnership"),
    /** The member offered declines; ownership stays where it is. */
    declineOwnership: () => post<{ ok: true }>("declineOwnership"),
    /** The owner withdraws the pending offer. */
    cancelOwnership: () => post<{ ok: true }>("cancelOwnership"),
  };
}

export type ResourceHandle = ReturnType<typeof resourceHandle>;

export function resourceApi(transport: Transport) {
  const handle = (id: string) => resourceHandle(transport, id);
  return Object.assign(handle, {
    handle,
    create: (type: string, options: { name: string; visibility?: Visibility }) =>
      transport.request<ResourceView>("POST", "/v1/resources", { body: { type, ...options } }),
    /**
     * Resources where the caller's membership is in `state` (default active). With `requested`, a
     * members-only resource shows only its id and type until the request is accepted.
     */
    list: async <S extends MemberState = "active">(
      options: { type?: string; state?: S } = {},
    ): Promise<S extends "requested" ? Array<ResourceView | RequestedView> : ResourceView[]> => {
      const query = new web.URLSearchParams();
      if (options.type) query.set("type", options.type);
      if (options.state) query.set("state", options.state);
      const suffix = query.size ? `?${query}` : "";
      return (await transport.request<{ resources: any[] }>("GET", `/v1/resources${suffix}`)).resources;
    },
    browse: async (options: BrowseOptions = {}): Promise<BrowsePage> => {
      const query = new web.URLSearchParams();
      if (options.type) query.set("type", options.type);
      if (options.query) query.set("query", options.query);
      if (options.limit !== undefined) query.set("limit", String(options.limit));
      if (options.cursor) query.set("cursor", options.cursor);
      return transport.request<BrowsePage>("GET", `/v1/resources/browse?${query}`);
    },
    static: (type: string, slug: string) =>
      transport.request<ResourceView>(
        "GET",
        `/v1/resources/static?${new web.URLSearchParams({ type, slug })}`,
      ),
    get: (id: string) => handle(id).get(),
  });
}
