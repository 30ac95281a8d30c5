/**
 * The page's small toolkit: element lookup and creation, the message lines (each card has its own:
 * what happened, what was refused, said beside the control that caused it), and `act`, which runs one
 * user action, says how it went in its card and repaints. Everything a person reads about a failure
 * goes through words.ts.
 */
import { GatewayError } from "../../packages/sdk/src/index.ts";
import { errorWords } from "./words.ts";

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** An element with text or children; `data` becomes data-* attributes (the tests' handles). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: { text?: string; data?: Record<string, string>; id?: string } = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.id) node.id = options.id;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [key, value] of Object.entries(options.data ?? {})) node.dataset[key] = value;
  node.append(...children);
  return node;
}

/** A button that runs `work` through `act`; `action` names it for tests (data-action). */
export function actionButton(
  label: string,
  action: string,
  work: () => Promise<string | undefined>,
  options: { repaint?: boolean } = {},
) {
  const button = el("button", { text: label, data: { action } });
  button.type = "button";
  button.onclick = () => act(button, work, options);
  return button;
}

/** Where a control's answer is said: the message lines of its own card (the session card by default). */
export type Card = HTMLElement;
export const cardOf = (control: Element): Card => control.closest<HTMLElement>("section") ?? $("session");

const line = (card: Card, kind: "done" | "error") => card.querySelector<HTMLElement>(`:scope > .${kind}`)!;

/** What just happened, in words (the card's success line). */
export function say(card: Card, text: string): void {
  line(card, "done").textContent = text;
}

/** What was refused or failed, in words (the card's error line). */
export function complain(card: Card, error: unknown): void {
  line(card, "error").textContent = errorWords(error);
}

/** Clears every card's message lines: one answer is on screen at a time, beside what caused it. */
export function clearMessages(): void {
  for (const message of document.querySelectorAll("section > .done, section > .error"))
    message.textContent = "";
}

let afterAction: () => Promise<void> = async () => {};
let sessionLost: (error: GatewayError, card: Card) => Promise<void> = async () => {};

/** What `act` does after each action (repaint), and when a call finds the session gone. */
export function onActed(hooks: {
  repaint: () => Promise<void>;
  sessionLost: (error: GatewayError, card: Card) => Promise<void>;
}): void {
  afterAction = hooks.repaint;
  sessionLost = hooks.sessionLost;
}

/**
 * Shows a failure in words, in `card`. A call refused because the session is gone is not the action's
 * error: the session notice says it (auth.onChange has already cleared the page, or the re-check does).
 */
export async function report(error: unknown, card: Card = $("session")): Promise<void> {
  if (error instanceof GatewayError && error.code === "unauthenticated")
    return sessionLost(error, card).catch((lost) => complain(card, lost));
  complain(card, error);
}

/**
 * Runs one user action from `control`: `work` may return the sentence to show on success, a refusal is
 * shown in words, both in the control's card; and then the page repaints, so it shows what is true now
 * either way (unless the action only moved around: opening, paging).
 */
export async function act(
  control: Element,
  work: () => Promise<unknown>,
  options: { repaint?: boolean } = {},
): Promise<void> {
  const card = cardOf(control); // before the work: a repaint may take the control away
  clearMessages();
  try {
    const done = await work();
    if (typeof done === "string") say(card, done);
  } catch (error) {
    if (error instanceof GatewayError && error.code === "unauthenticated") return report(error, card);
    complain(card, error);
  }
  if (options.repaint !== false) await afterAction().catch((error) => report(error, card));
}

/**
 * Hands out tickets so that only the newest load of an area may paint it: a slow answer from before
 * a sign-out (or from before a newer load) is dropped instead of showing stale or another user's data.
 */
export class Latest {
  private current = 0;
  next(): number {
    return ++this.current;
  }
  isCurrent(ticket: number): boolean {
    return ticket === this.current;
  }
  /** Makes every load in flight stale. */
  invalidate(): void {
    this.current++;
  }
}
