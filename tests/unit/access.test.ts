/**
 * The pure access rules, table-driven: who reads a roster (the `_app` roster is its admins' only),
 * what a pending requester sees, and who owns a resource (never a user, for an app-owned one).
 */
import { describe, expect, test } from "bun:test";
import {
  canSee,
  isOwner,
  type MembershipFacts,
  requesterSeesDetails,
  rosterAccess,
} from "../../src/server/resources/access.ts";
import { ROLES } from "../../src/server/resources/roles.ts";

const STATES = ["invited", "requested", "active"] as const;

describe("rosterAccess", () => {
  test("the _app roster is read by its admins and owner only; other members get forbidden", () => {
    const cells = ROLES.flatMap((role) =>
      STATES.map((state) => [
        role,
        state,
        rosterAccess({ type: "_app", visibility: "members" }, { role, state }),
      ]),
    );
    expect(cells.filter(([, , access]) => access === "allowed")).toEqual([
      ["admin", "active", "allowed"],
      ["owner", "active", "allowed"],
    ]);
    expect(cells.filter(([, state]) => state === "active").map(([role, , access]) => [role, access])).toEqual(
      [
        ["reader", "forbidden"],
        ["writer", "forbidden"],
        ["admin", "allowed"],
        ["owner", "allowed"],
      ],
    );
    expect(rosterAccess({ type: "_app", visibility: "members" }, null)).toBe("not_found");
  });

  test("other rosters: every active member; a public resource's others forbidden, a members-only one's not found", () => {
    for (const visibility of ["members", "public"] as const) {
      for (const role of ROLES)
        expect(rosterAccess({ type: "team", visibility }, { role, state: "active" })).toBe("allowed");
      const outsider = visibility === "public" ? "forbidden" : "not_found";
      const pending: Array<MembershipFacts | null> = [
        null,
        { role: "writer", state: "invited" },
        { role: "writer", state: "requested" },
      ];
      for (const membership of pending)
        expect(rosterAccess({ type: "team", visibility }, membership)).toBe(outsider);
    }
  });
});

test("a requester sees details only of a public resource, as anyone may", () => {
  expect(requesterSeesDetails({ visibility: "public" })).toBe(true);
  expect(requesterSeesDetails({ visibility: "members" })).toBe(false);
  expect(canSee({ visibility: "members" }, { state: "requested" })).toBe(false);
  expect(canSee({ visibility: "members" }, { state: "invited" })).toBe(true);
});

test("isOwner: an app-owned resource has no user owner, whatever the user's subject", () => {
  const cells = [
    [{ ownerKind: "app", ownerId: "app:demo" }, "app:demo", false],
    [{ ownerKind: "app", ownerId: "app:demo" }, "alice", false],
    [{ ownerKind: "user", ownerId: "app:demo" }, "app:demo", true],
    [{ ownerKind: "user", ownerId: "alice" }, "alice", true],
    [{ ownerKind: "user", ownerId: "alice" }, "bob", false],
  ] as const;
  for (const [resource, userId, expected] of cells) expect(isOwner(resource, userId)).toBe(expected);
});
