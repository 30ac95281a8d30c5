/**
 * The TUI's pure parts, table-driven: column widths (content first, the widest gives way), sorting,
 * the filter's terms, the command line and its completion, OSC 52.
 */
import { describe, expect, test } from "bun:test";
import { confirmHeight } from "../../src/tui/chrome.tsx";
import { osc52 } from "../../src/tui/clipboard.ts";
import { type Column, columnWidths, nextSort, sortRows } from "../../src/tui/columns.ts";
import { completeCommand, parseCommand } from "../../src/tui/command.ts";
import { filterRows, parseFilter } from "../../src/tui/filter.ts";
import { fit } from "../../src/tui/format.ts";
import { tokenize } from "../../src/tui/keys.ts";
import { deleteUserAction } from "../../src/tui/user.tsx";

type Row = { id: string; user: string; client: string; n: number };
const COLUMNS: Column<Row>[] = [
  { title: "ID", min: 6, cell: (r) => r.id },
  { title: "USER", min: 6, grow: true, cell: (r) => r.user },
  { title: "CLIENT", min: 6, cell: (r) => r.client },
  { title: "N", min: 3, cell: (r) => String(r.n), sortKey: (r) => r.n },
];
const ROWS: Row[] = [
  { id: "a".repeat(30), user: "alice", client: "test-web", n: 10 },
  { id: "b", user: "bob-with-a-long-name", client: "cli", n: 9 },
];

describe("columnWidths", () => {
  test("room to spare: each column its content, the rest to the growing column", () => {
    const widths = columnWidths(COLUMNS, ROWS, 100, 0);
    // N: its title and a sort arrow; USER takes what is left of 100.
    expect(widths).toEqual([30, 100 - 3 - 30 - 8 - 2, 8, 2]);
  });

  test("short of room: the widest column gives way first, a short one keeps its content", () => {
    const widths = columnWidths(COLUMNS, ROWS, 50, 0);
    expect(widths[2]).toBe(8); // CLIENT: "test-web" whole
    expect(widths[3]).toBe(2);
    expect(widths.reduce((a, b) => a + b, 0) + 3).toBe(50);
    expect(Math.abs(widths[0]! - widths[1]!)).toBeLessThanOrEqual(1); // the two long ones shrank to meet
  });

  test("never below a column's minimum (the line is then cut at the edge)", () => {
    expect(columnWidths(COLUMNS, ROWS, 10, 0)).toEqual([6, 6, 6, 2]);
  });

  test("fit cuts at the end, or keeps the end of ids", () => {
    expect(fit("abcdefgh", 5)).toBe("abcd…");
    expect(fit("abcdefgh", 5, "start")).toBe("…efgh");
    expect(fit("ab", 5)).toBe("ab   ");
  });
});

describe("sorting", () => {
  test("by a column's key, stable, either way; s walks the columns then back to none", () => {
    expect(sortRows(COLUMNS, ROWS, { column: 3, desc: false }, 0).map((r) => r.n)).toEqual([9, 10]);
    expect(sortRows(COLUMNS, ROWS, { column: 1, desc: true }, 0).map((r) => r.user)).toEqual([
      "bob-with-a-long-name",
      "alice",
    ]);
    expect(sortRows(COLUMNS, ROWS, undefined, 0)).toEqual(ROWS);
    let sort = nextSort(undefined, 2);
    expect(sort).toEqual({ column: 0, desc: false });
    sort = nextSort(sort, 2);
    expect(sort).toEqual({ column: 1, desc: false });
    expect(nextSort(sort, 2)).toBeUndefined();
  });
});

describe("the filter", () => {
  const spec = {
    search: (r: Row) => `${r.id} ${r.user}`,
    fields: { user: (r: Row) => r.user, client: (r: Row) => r.client },
  };
  test("words and field:value terms, all must match; an unknown field is a word", () => {
    expect(parseFilter("user:bob web nope:x", ["user", "client"])).toEqual({
      fields: { user: "bob" },
      words: ["web", "nope:x"],
    });
    expect(filterRows(spec, ROWS, "client:CLI").map((r) => r.user)).toEqual(["bob-with-a-long-name"]);
    expect(filterRows(spec, ROWS, "ALI")).toEqual([ROWS[0]!]);
    expect(filterRows(spec, ROWS, "alice client:cli")).toEqual([]);
    expect(filterRows(spec, ROWS, "  ")).toEqual(ROWS);
  });
});

describe("the command line", () => {
  test.each([
    ["sessions", { kind: "go", view: "sessions" }],
    ["ev", { kind: "go", view: "events" }],
    ["res", { kind: "go", view: "resources" }],
    ["resources", { kind: "go", view: "resources" }],
    ["resource 0190-abc", { kind: "resource", id: "0190-abc" }],
    ["res 0190-abc", { kind: "resource", id: "0190-abc" }],
    ["user  bob ", { kind: "user", id: "bob" }],
    ["u bob", { kind: "user", id: "bob" }],
    ["q", { kind: "quit" }],
    ["help", { kind: "help" }],
  ])(":%s", (text, command) => {
    expect(parseCommand(text)).toEqual(command as ReturnType<typeof parseCommand>);
  });

  test("errors say what to type", () => {
    expect(parseCommand("user")).toEqual({ kind: "error", message: ":user needs an id, e.g. :user <id>" });
    expect(parseCommand("zz")).toMatchObject({ kind: "error", message: expect.stringContaining("Unknown") });
    expect(parseCommand("")).toMatchObject({ kind: "error", message: expect.stringContaining("Commands") });
  });

  test("tab completes a unique name (with a space for an id), or the common part and the choices", () => {
    expect(completeCommand("ev")).toEqual({ text: "events", choices: ["events"] });
    expect(completeCommand("us")).toEqual({ text: "user ", choices: ["user"] });
    expect(completeCommand("res")).toEqual({ text: "resource", choices: ["resources", "resource"] });
    expect(completeCommand("")).toMatchObject({ text: "" });
    expect(completeCommand("zz")).toEqual({ text: "zz", choices: [] });
    expect(completeCommand("user b")).toEqual({ text: "user b", choices: [] });
  });
});

test("OSC 52 carries the text in base64 for the clipboard", () => {
  expect(osc52("r1-é")).toBe(`\u001b]52;c;${Buffer.from("r1-é").toString("base64")}\u0007`);
});

describe("tokenize", () => {
  test("an enter, tab or backspace inside a chunk of typed text is a key of its own", () => {
    expect(tokenize("ab\r", {})).toEqual(["a", "b", "enter"]);
    expect(tokenize("x\r\ny", {})).toEqual(["x", "enter", "y"]);
    expect(tokenize("re\ts\u007f", {})).toEqual(["r", "e", "tab", "s", "backspace"]);
    expect(tokenize("jj", {})).toEqual(["j", "j"]);
    expect(tokenize("", { return: true })).toEqual(["enter"]);
    expect(tokenize("c", { ctrl: true })).toEqual([]);
  });
});

describe("deleting a user: the confirmation", () => {
  const user = (transfer: number, deleted: number) => ({
    userId: "ada",
    welcomed: false,
    balanceUsd: 0,
    sessions: [],
    memberships: [],
    ifDeleted: {
      transfer: Array.from({ length: transfer }, (_, i) => ({
        resourceId: `t${i}`,
        name: `T${i}`,
        to: `h${i}`,
      })),
      delete: Array.from({ length: deleted }, (_, i) => ({ resourceId: `d${i}`, name: `D${i}` })),
    },
  });

  test("names what passes on (to whom) and what is deleted, at most three of each", () => {
    expect(deleteUserAction(user(0, 0))?.label).toBe(
      "Delete user ada? It ends their memberships and sessions. There is no undo.",
    );
    expect(deleteUserAction(user(1, 1))?.label).toBe(
      "Delete user ada? It passes T0 to h0; deletes D0; it ends their memberships and sessions. There is no undo.",
    );
    expect(deleteUserAction(user(5, 4))?.label).toBe(
      "Delete user ada? It passes T0 to h0, T1 to h1, T2 to h2 and 2 more; deletes D0, D1, D2 and 1 more; it ends their memberships and sessions. There is no undo.",
    );
    expect(deleteUserAction(undefined)).toBeUndefined();
  });

  test("its box grows with the question, up to three lines of it", () => {
    const action = deleteUserAction(user(5, 4))!;
    expect(confirmHeight({ ...action, label: "short" }, 80)).toBe(4);
    expect(confirmHeight(action, 80)).toBe(6); // 160 characters over 76 columns: 3 lines
    expect(confirmHeight({ ...action, label: "x".repeat(1000) }, 80)).toBe(6);
  });
});
