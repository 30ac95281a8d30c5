/**
 * Roles and the grant ceiling. Every expectation is computed from the spec's order
 * written out here (reader < writer < admin < owner), never from roles.ts itself.
 */
import { describe, expect, test } from "bun:test";
import {
  canActOn,
  canGrant,
  GRANTABLE_ROLES,
  isAdmin,
  isGrantableRole,
  ROLES,
  type Role,
  rank,
} from "../../src/server/resources/roles.ts";

type Grantable = "reader" | "writer" | "admin";
const SPEC_ROLES: Role[] = ["reader", "writer", "admin", "owner"];
const SPEC_GRANTABLE: Grantable[] = ["reader", "writer", "admin"];
/** "Roles, lowest first: reader < writer < admin < owner". */
const LEVEL: Record<Role, number> = { reader: 1, writer: 2, admin: 3, owner: 4 };

describe("role order", () => {
  test("ROLES lists every role lowest first; GRANTABLE_ROLES excludes owner", () => {
    expect([...ROLES]).toEqual(SPEC_ROLES);
    expect([...GRANTABLE_ROLES]).toEqual(SPEC_GRANTABLE);
  });

  test("explicit chain reader < writer < admin < owner", () => {
    expect(rank("reader")).toBeLessThan(rank("writer"));
    expect(rank("writer")).toBeLessThan(rank("admin"));
    expect(rank("admin")).toBeLessThan(rank("owner"));
  });

  for (const a of SPEC_ROLES) {
    for (const b of SPEC_ROLES) {
      test(`rank(${a}) vs rank(${b}) follows the spec order`, () => {
        expect(Math.sign(rank(a) - rank(b))).toBe(Math.sign(LEVEL[a] - LEVEL[b]));
      });
    }
  }

  test("ranks are distinct integers", () => {
    const ranks = SPEC_ROLES.map(rank);
    expect(new Set(ranks).size).toBe(4);
    for (const r of ranks) expect(Number.isInteger(r)).toBe(true);
  });
});

describe("isAdmin: admin or higher (seed: invite, setRole, remove need 'admin or higher')", () => {
  const rows: Array<[Role, boolean]> = [
    ["reader", false],
    ["writer", false],
    ["admin", true],
    ["owner", true],
  ];
  for (const [role, want] of rows) {
    test(`isAdmin(${role}) = ${want}`, () => expect(isAdmin(role)).toBe(want));
  }
});

describe("isGrantableRole: only reader, writer, admin (else invalid_role)", () => {
  for (const role of SPEC_GRANTABLE) {
    test(`${role} is grantable`, () => expect(isGrantableRole(role)).toBe(true));
  }
  const junk: Array<[string, unknown]> = [
    ["owner (only by creation or deploy)", "owner"],
    ["the number 3", 3],
    ["the number 0", 0],
    ["the number 1", 1],
    ['"root"', "root"],
    ["empty string", ""],
    ['"Admin" (case matters)', "Admin"],
    ['"READER"', "READER"],
    ['" admin" (leading space)', " admin"],
    ['"writer " (trailing space)', "writer "],
    ["undefined", undefined],
    ["null", null],
    ["true", true],
    ["NaN", Number.NaN],
    ["an object", { role: "admin" }],
    ["an array holding a role", ["admin"]],
    ["a String object", new String("admin")],
    ['"constructor"', "constructor"],
    ['"toString"', "toString"],
    ['"__proto__"', "__proto__"],
    ['"length"', "length"],
    ["a symbol", Symbol("admin")],
  ];
  for (const [name, value] of junk) {
    test(`${name} is not grantable`, () => expect(isGrantableRole(value)).toBe(false));
  }
});

describe("canGrant: never above the type's grant ceiling, never above the caller's own role", () => {
  // Independent rule: role <= ceiling AND role <= actor.
  for (const actor of SPEC_ROLES) {
    for (const role of SPEC_GRANTABLE) {
      for (const ceiling of SPEC_GRANTABLE) {
        const want = LEVEL[role] <= LEVEL[ceiling] && LEVEL[role] <= LEVEL[actor];
        test(`actor ${actor} grants ${role} under ceiling ${ceiling}: ${want}`, () => {
          expect(canGrant(actor, role, ceiling)).toBe(want);
        });
      }
    }
  }

  const explicit: Array<[string, Role, Grantable, Grantable, boolean]> = [
    ["admin grants admin under the default ceiling (admin)", "admin", "admin", "admin", true],
    ["owner grants admin under ceiling writer: above the ceiling", "owner", "admin", "writer", false],
    ["owner grants writer under ceiling writer", "owner", "writer", "writer", true],
    ["admin grants writer under ceiling reader: above the ceiling", "admin", "writer", "reader", false],
    ["writer grants admin: above own role", "writer", "admin", "admin", false],
    ["reader grants writer: above own role", "reader", "writer", "admin", false],
    ["reader grants reader", "reader", "reader", "reader", true],
  ];
  for (const [name, actor, role, ceiling, want] of explicit) {
    test(name, () => expect(canGrant(actor, role, ceiling)).toBe(want));
  }
});

describe("canActOn: not the owner, not a peer or superior (seed setRole/remove)", () => {
  for (const actor of SPEC_ROLES) {
    for (const target of SPEC_ROLES) {
      const want =
        target === "owner" ? "target_is_owner" : LEVEL[target] >= LEVEL[actor] ? "insufficient_rank" : null;
      test(`${actor} acting on ${target}: ${want ?? "allowed"}`, () => {
        expect(canActOn(actor, target)).toBe(want);
      });
    }
  }

  const explicit: Array<[string, Role, Role, ReturnType<typeof canActOn>]> = [
    ["owner on admin", "owner", "admin", null],
    ["owner on owner (itself): target_is_owner wins", "owner", "owner", "target_is_owner"],
    ["admin on owner", "admin", "owner", "target_is_owner"],
    ["admin on admin (peer)", "admin", "admin", "insufficient_rank"],
    ["admin on writer", "admin", "writer", null],
    ["admin on reader", "admin", "reader", null],
    ["writer on writer (peer)", "writer", "writer", "insufficient_rank"],
    ["writer on admin (superior)", "writer", "admin", "insufficient_rank"],
    ["reader on reader", "reader", "reader", "insufficient_rank"],
  ];
  for (const [name, actor, target, want] of explicit) {
    test(name, () => expect(canActOn(actor, target)).toBe(want));
  }
});
