/**
 * The web platform the SDK uses, typed here rather than through the DOM library: the package
 * type-checks in a project whose `lib` has no DOM (a Node or Deno server), and none of these types
 * appears in its public API. Browsers, Bun, Node 20+ and Deno all provide these globals (`location`,
 * `history` and `sessionStorage` only in a browser, used only by a browser client).
 */
interface SearchParams {
  get(name: string): string | null;
  set(name: string, value: string): void;
  delete(name: string): void;
  has(name: string): boolean;
  readonly size: number;
  toString(): string;
}

interface ParsedUrl {
  readonly origin: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
  readonly searchParams: SearchParams;
}

interface Web {
  fetch(url: string, init: unknown): Promise<unknown>;
  URL: new (url: string, base?: string) => ParsedUrl;
  URLSearchParams: new (init?: Record<string, string> | string) => SearchParams;
  TextEncoder: new () => { encode(text: string): Uint8Array };
  btoa(text: string): string;
  crypto: {
    getRandomValues<T extends Uint8Array>(array: T): T;
    subtle: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> };
  };
  AbortSignal: { timeout(ms: number): unknown };
  setTimeout(callback: () => void, ms: number): unknown;
  /** Browsers, Deno and Bun: report an error as uncaught without throwing it. */
  reportError?: (error: unknown) => void;
  location: {
    readonly origin: string;
    readonly pathname: string;
    readonly href: string;
    assign(url: string): void;
  };
  history: { readonly state: unknown; replaceState(state: unknown, unused: string, url: string): void };
  sessionStorage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
}

export const web = globalThis as unknown as Web;
