/** Plain-text helpers shared by the screens and the non-TTY output; no Ink here, so `--json` loads no UI. */
import type { Overview } from "./client.ts";
import { printable } from "./printable.ts";

export function duration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? ` ${s % 60}s` : ""}`;
  if (s < 86_400)
    return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)}m` : ""}`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600) ? ` ${Math.floor((s % 86_400) / 3600)}h` : ""}`;
}

/** The coarsest unit only, for table cells: 42s, 5m, 3h, 12d. */
export function short(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

export function ago(iso: string, now: number): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? "?" : `${short((now - t) / 1000)} ago`;
}

export function until(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "?";
  return t <= now ? "expired" : `in ${short((t - now) / 1000)}`;
}

/**
 * Pads or cuts to exactly `width` columns (ids and names are mostly ASCII). A cut ends in "…", or with
 * `cut: "start"` begins with it and keeps the end (ids that share a prefix differ at their end).
 */
export function fit(text: string, width: number, cut: "start" | "end" = "end"): string {
  if (width <= 0) return "";
  const chars = [...printable(text)];
  if (chars.length <= width) return chars.join("").padEnd(width);
  return cut === "start"
    ? `…${chars.slice(-(width - 1)).join("")}`
    : `${chars.slice(0, width - 1).join("")}…`;
}

/** The visibility as the schema says it: members, unlisted or discoverable. */
export function visibilityWord(row: { visibility: string; discoverable: boolean }): string {
  if (row.visibility === "members") return "members";
  return row.discoverable ? "discoverable" : "unlisted";
}

export function money(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

export function overviewLines(overview: Overview): [string, string][] {
  const { hits, misses } = overview.tokenCache;
  const ratio = hits + misses > 0 ? ` (${Math.round((100 * hits) / (hits + misses))}% hits)` : "";
  return [
    ["Sessions active", String(overview.sessions.active)],
    ["Users", String(overview.users)],
    ["Resources", String(overview.resources)],
    ["Pending invites", String(overview.pending.invited)],
    ["Pending requests", String(overview.pending.requested)],
    ["Token cache", `${hits} hits / ${misses} misses${ratio}`],
    ["Uptime", duration(overview.uptimeSeconds)],
  ];
}

export function overviewText(url: string, overview: Overview): string {
  const rows: [string, string][] = [["Gateway", url], ...overviewLines(overview)];
  return `${rows.map(([k, v]) => `${k.padEnd(18)}${v}`).join("\n")}\n`;
}
