// React: the provider holds the sign-in state; <SignedIn>/<SignedOut> and useSession() read it.
import { createClient, type ResourceView } from "@session-gateway/sdk";
import { GatewayProvider, SignedIn, SignedOut, useGateway, useSession } from "@session-gateway/sdk/react";
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";

const GATEWAY_URL = "http://localhost:8787"; // your gateway, on your page's host: the banner's gatewayUrl
const CLIENT_ID = "local-3000"; // your app's client: `gateway dev --app http://localhost:3000` registers it

const gateway = createClient({ gatewayUrl: GATEWAY_URL, clientId: CLIENT_ID });

function Teams() {
  const client = useGateway();
  const [teams, setTeams] = useState<ResourceView[]>();
  const load = () => client.resource.list({ type: "team" }).then(setTeams, () => setTeams(undefined));
  return (
    <section>
      <button type="button" id="load-teams" onClick={load}>
        My teams
      </button>
      {teams && <p id="teams">{teams.length} teams</p>}
    </section>
  );
}

function App() {
  const session = useSession();
  return (
    <main>
      <SignedIn>
        <p>
          Signed in as <b id="user">{session.userId}</b>
        </p>
        <button type="button" id="sign-out" onClick={session.signOut}>
          Sign out
        </button>
        <Teams />
      </SignedIn>
      <SignedOut>
        {session.reason === "revoked" && <p id="notice">An operator ended your session.</p>}
        {session.error && <p id="notice">{session.error.message}</p>}
        <button type="button" id="sign-in" onClick={session.signIn}>
          Sign in
        </button>
      </SignedOut>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <GatewayProvider client={gateway}>
      <App />
    </GatewayProvider>
  </StrictMode>,
);
