/**
 * Where the documentation states a figure that the build or the code produces, and whether it is
 * stale. A figure is marked in prose as `<!-- figure:NAME -->VALUE<!-- /figure -->` (invisible once
 * rendered); one that varies between runs (memory) states its tolerance in the marker,
 * `<!-- figure:NAME ±15% -->`. Inside a code block, where a comment would show, a figure is found by a
 * pattern instead (a version in a file name). Pure: text in, occurrences and rewritten text out.
 */

export interface Occurrence {
  name: string;
  /** The value as the page states it. */
  value: string;
  /** Where the value starts in the text, and its length. */
  index: number;
  length: number;
  /** A fraction (0.15 for ±15%): the stated number may differ from the measured one by this much. */
  tolerance?: number;
}

const MARKER = /<!-- figure:([a-z0-9-]+)(?: ±(\d+(?:\.\d+)?)%)? -->([\s\S]*?)<!-- \/figure -->/dg;

/** Every marked figure and every match of `patterns` (one capture group: the value) in `text`. */
export function occurrences(text: string, patterns: Readonly<Record<string, RegExp>> = {}): Occurrence[] {
  const found: Occurrence[] = [];
  for (const match of text.matchAll(MARKER)) {
    const [start, end] = match.indices![3]!;
    found.push({
      name: match[1]!,
      value: match[3]!,
      index: start,
      length: end - start,
      ...(match[2] === undefined ? {} : { tolerance: Number(match[2]) / 100 }),
    });
  }
  for (const [name, pattern] of Object.entries(patterns))
    for (const match of text.matchAll(new RegExp(pattern.source, "dg"))) {
      const [start, end] = match.indices![1]!;
      found.push({ name, value: match[1]!, index: start, length: end - start });
    }
  return found.sort((a, b) => a.index - b.index);
}

/** The first number in `text` ("1,024.5 MB" → 1024.5), or undefined. */
function firstNumber(text: string): number | undefined {
  const match = /\d[\d,]*(?:\.\d+)?/.exec(text);
  return match ? Number(match[0].replaceAll(",", "")) : undefined;
}

/** Whether `stated` says something other than `measured`, beyond the occurrence's tolerance. */
export function isStale(occurrence: Pick<Occurrence, "value" | "tolerance">, measured: string): boolean {
  const stated = occurrence.value;
  if (stated === measured) return false;
  if (occurrence.tolerance === undefined) return true;
  const [a, b] = [firstNumber(stated), firstNumber(measured)];
  const unit = (text: string) => text.replace(/\d[\d,]*(?:\.\d+)?/, "#");
  if (a === undefined || b === undefined || unit(stated) !== unit(measured)) return true;
  return Math.abs(a - b) > b * occurrence.tolerance;
}

/** `text` with every stale occurrence of a measured figure replaced by its measured value. */
export function rewrite(
  text: string,
  measured: Readonly<Record<string, string>>,
  patterns: Readonly<Record<string, RegExp>> = {},
): string {
  let result = text;
  for (const occurrence of occurrences(text, patterns).reverse()) {
    const value = measured[occurrence.name];
    if (value === undefined || !isStale(occurrence, value)) continue;
    result = result.slice(0, occurrence.index) + value + result.slice(occurrence.index + occurrence.length);
  }
  return result;
}
