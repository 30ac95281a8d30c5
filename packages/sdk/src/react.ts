/**
 * React bindings (`@session-gateway/sdk/react`): a provider that knows the sign-in state, `useSession()`
 * to read it, `useGateway()` for the client, and `<SignedIn>` / `<SignedOut>`. React is an optional peer
 * dependency: nothing here loads unless you import this subpath.
 *
 * The provider finishes a sign-in when the page is the redirect back (its URL carries the provider's
 * `code` or `error`), once even under StrictMode's double effects, then asks the gateway for
 * the session, and follows `auth.onChange`: a revoked or expired session turns the state to signed out
 * with its `reason`, so the page can say why.
 *
 * @example
 * const gateway = createClient({ gatewayUrl: "https://gw.example.com", clientId: "my-app" });
 * root.render(<GatewayProvider client={gateway}><App /></GatewayProvider>);
 * function App() {
 *   const session = useSession();
 *   return (<>
 *     <SignedIn>Hello {session.userId} <button onClick={session.signOut}>Sign out</button></SignedIn>
 *     <SignedOut><button onClick={session.signIn}>Sign in</button></SignedOut>
 *   </>);
 * }
 */
import { createContext, createElement, type ReactNode, useContext, useEffect, useState } from "react";
import type { AuthChange } from "./auth-state.ts";
import type { SessionEndReason } from "./codes.gen.ts";
import type { BrowserClient } from "./index.ts";
import { GatewayError } from "./transport.ts";
import { web } from "./web.ts";

export interface SessionState {
  /** `loading` until the first answer (and the redirect callback, when this page is one) is in. */
  status: "loading" | "signed_in" | "signed_out";
  userId?: string;
  /** When signed out: why (`revoked`, `expired`, `signed_out`, `no_session`…), if the gateway said. */
  reason?: SessionEndReason;
  /** The last failure: a callback that could not finish, or a gateway that could not be reached. */
  error?: GatewayError;
}

export interface UseSession extends SessionState {
  isSignedIn: boolean;
  signIn(): Promise<void>;
  signOut(): Promise<void>;
}

interface Shared {
  client: BrowserClient;
  state: SessionState;
}

const Context = createContext<Shared | null>(null);

function isRedirectBack(): boolean {
  const params = new web.URL(web.location.href).searchParams;
  return (params.has("code") && params.has("state")) || params.has("error");
}

/**
 * Finishes the sign-in when this page is the redirect back; its failure, if it had one. The callback
 * cleans the address bar before its first await, so an effect that runs again (StrictMode) finds
 * nothing to finish.
 */
async function finishSignIn(client: BrowserClient): Promise<GatewayError | undefined> {
  if (!isRedirectBack()) return undefined;
  try {
    await client.auth.handleRedirectCallback();
    return undefined;
  } catch (failure) {
    if (failure instanceof GatewayError) return failure;
    throw failure;
  }
}

async function sessionState(client: BrowserClient): Promise<SessionState> {
  try {
    const session = await client.auth.getSession();
    return session.authenticated
      ? { status: "signed_in", userId: session.userId }
      : { status: "signed_out", reason: session.reason };
  } catch (failure) {
    if (failure instanceof GatewayError) return { status: "signed_out", error: failure };
    throw failure;
  }
}

function stateAfter(change: AuthChange): SessionState {
  if (change.type === "signed_in") return { status: "signed_in", userId: change.userId };
  return { status: "signed_out", reason: change.type === "session_ended" ? change.reason : "signed_out" };
}

/**
 * Holds the sign-in state for the tree below. `handleCallback` (default true): finish a sign-in when
 * this page is the redirect back; turn it off if another part of the app calls `handleRedirectCallback`.
 */
export function GatewayProvider(props: {
  client: BrowserClient;
  handleCallback?: boolean;
  children?: ReactNode;
}): ReactNode {
  const { client, handleCallback = true } = props;
  const [state, setState] = useState<SessionState>({ status: "loading" });
  useEffect(() => {
    let live = true;
    const stop = client.auth.onChange((change) => {
      if (live) setState(stateAfter(change));
    });
    const callback = handleCallback ? finishSignIn(client) : Promise.resolve(undefined);
    callback.then(async (error) => {
      const current = await sessionState(client);
      if (live) setState(error ? { ...current, error } : current);
    });
    return () => {
      live = false;
      stop();
    };
  }, [client, handleCallback]);
  return createElement(Context.Provider, { value: { client, state } }, props.children);
}

function useShared(): Shared {
  const shared = useContext(Context);
  if (!shared) throw new Error("useSession and useGateway need a <GatewayProvider> above them.");
  return shared;
}

/** The sign-in state, and the calls that change it. */
export function useSession(): UseSession {
  const { client, state } = useShared();
  return {
    ...state,
    isSignedIn: state.status === "signed_in",
    signIn: () => client.auth.signIn(),
    signOut: async () => {
      await client.auth.signOut();
    },
  };
}

/** The provider's client, for `resource.*` calls. */
export function useGateway(): BrowserClient {
  return useShared().client;
}

/** Its children only while someone is signed in (nothing while loading). */
export function SignedIn(props: { children?: ReactNode }): ReactNode {
  return useShared().state.status === "signed_in" ? (props.children ?? null) : null;
}

/** Its children only once the gateway said nobody is signed in (nothing while loading). */
export function SignedOut(props: { children?: ReactNode }): ReactNode {
  return useShared().state.status === "signed_out" ? (props.children ?? null) : null;
}
