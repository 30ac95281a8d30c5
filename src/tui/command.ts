/**
 * The `:` command line, as in k9s: `:sessions`, `:pending`, `:resources`, `:events`, `:overview`,
 * `:user <id>`, `:resource <id>`, `:help`, `:quit`. A unique prefix is enough (`:ev`); tab completes a
 * screen's name (or shows the choices). Pure: the key handler runs what `parseCommand` answers.
 */
import type { TabView } from "./ui-state.ts";

export type Command =
  | { kind: "go"; view: TabView }
  | { kind: "user"; id: string }
  | { kind: "resource"; id: string }
  | { kind: "help" }
  | { kind: "quit" }
  | { kind: "error"; message: string };

const NAMES = ["overview", "sessions", "pending", "resources", "events", "user", "resource", "help", "quit"];
/** Names that take an id after them. */
const WITH_ID = new Set(["user", "resource"]);

export const COMMAND_HINT = "sessions pending resources events user <id> resource <id> help quit";

function resolve(word: string): string[] {
  const lower = word.toLowerCase();
  if (NAMES.includes(lower)) return [lower];
  if (lower === "q") return ["quit"];
  return NAMES.filter((name) => name.startsWith(lower));
}

export function parseCommand(text: string): Command {
  const [word = "", ...rest] = text.trim().split(/\s+/);
  const arg = rest.join(" ");
  if (!word) return { kind: "error", message: `Commands: ${COMMAND_HINT}` };
  const matches = resolve(word);
  // "resource" is a prefix of "resources": with an id it is the one resource, without it the list.
  const name =
    matches.length === 1
      ? matches[0]
      : matches.includes("resource") && matches.includes("resources") && matches.length === 2
        ? arg
          ? "resource"
          : "resources"
        : undefined;
  if (!name) {
    return {
      kind: "error",
      message: matches.length
        ? `":${word}" could be ${matches.join(", ")}`
        : `Unknown command ":${word}". Commands: ${COMMAND_HINT}`,
    };
  }
  if (WITH_ID.has(name)) {
    if (!arg) return { kind: "error", message: `:${name} needs an id, e.g. :${name} <id>` };
    return name === "user" ? { kind: "user", id: arg } : { kind: "resource", id: arg };
  }
  if (name === "help") return { kind: "help" };
  if (name === "quit") return { kind: "quit" };
  return { kind: "go", view: name as TabView };
}

/** Tab: completes the command's name as far as it is unambiguous; `choices` lists the candidates. */
export function completeCommand(text: string): { text: string; choices: string[] } {
  if (/\s/.test(text.trimStart())) return { text, choices: [] };
  const word = text.trim().toLowerCase();
  const choices = NAMES.filter((name) => name.startsWith(word));
  if (choices.length === 0) return { text, choices };
  if (choices.length === 1) {
    const only = choices[0] ?? "";
    return { text: WITH_ID.has(only) ? `${only} ` : only, choices };
  }
  let common = choices[0] ?? "";
  for (const c of choices) while (!c.startsWith(common)) common = common.slice(0, -1);
  return { text: common.length > word.length ? common : text, choices };
}
