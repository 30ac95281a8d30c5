/**
 * What the access log needs to know about a request that only the handlers learn (the credential and
 * its client), and the request id everything logged about the request carries. Kept beside the
 * Request object (a WeakMap, like the client address), so no handler signature changes.
 */
export type CredentialKind = "cookie" | "bearer" | "admin";

/** What a listener tells of a request's socket. */
export interface RequestServer {
  requestIP(request: Request): { address: string } | null;
}

export interface RequestFacts {
  id: string;
  credential?: CredentialKind;
  clientId?: string;
  /** The listener that received it (none in process): asked for the client address when needed. */
  server?: RequestServer;
  /** The route's template, noted by the pipeline once a route answered (none: no route took it). */
  route?: string;
  /** The answer carries the request's id already (the pipeline wrote it with the JSON answer). */
  idOnAnswer?: boolean;
}

/**
 * Kept on the Request under a symbol of this module (a property lookup; a WeakMap entry per request cost
 * more, and the collector had to clear each one).
 */
const FACTS = Symbol("request facts");
type WithFacts = Request & { [FACTS]?: RequestFacts };
const facts = {
  get: (request: Request) => (request as WithFacts)[FACTS],
  set: (request: Request, entry: RequestFacts) => {
    (request as WithFacts)[FACTS] = entry;
  },
};

/** An incoming X-Request-Id is kept when it is 1-128 characters of this set; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:;=+/@-]{1,128}$/;

export function startRequest(request: Request, server?: RequestServer): RequestFacts {
  const incoming = request.headers.get("x-request-id");
  const entry: RequestFacts = {
    id: incoming !== null && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID(),
    server,
  };
  facts.set(request, entry);
  return entry;
}

/** The request's facts; a request handled in process (no listener) gets them on first use. */
export function requestFacts(request: Request): RequestFacts {
  return facts.get(request) ?? startRequest(request);
}

/** The request's id; a request handled in process (no listener) gets one on first use. */
export function requestId(request: Request): string {
  return requestFacts(request).id;
}

export function requestServer(request: Request): RequestServer | undefined {
  return facts.get(request)?.server;
}

export function noteCredential(request: Request, credential: CredentialKind, clientId?: string): void {
  const entry = facts.get(request);
  if (entry === undefined) return;
  entry.credential = credential;
  if (clientId !== undefined) entry.clientId = clientId;
}
