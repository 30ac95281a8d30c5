// A page signing people in through the gateway: the browser client. Bundle it with any bundler.
import { createClient, GatewayError } from "@session-gateway/sdk";

const GATEWAY_URL = "http://localhost:8787"; // your gateway, on your page's host: the banner's gatewayUrl
const CLIENT_ID = "local-3000"; // your app's client: `gateway dev --app http://localhost:3000` registers it

const gateway = createClient({ gatewayUrl: GATEWAY_URL, clientId: CLIENT_ID });
const show = (id: string, text: string) => {
  document.getElementById(id)!.textContent = text;
};

gateway.auth.onChange((change) => {
  if (change.type === "signed_in") show("user", change.userId);
  else show("user", "nobody");
  if (change.type === "session_ended") show("notice", `You were signed out (${change.reason}).`);
});
document.getElementById("sign-in")!.onclick = () => gateway.auth.signIn();
document.getElementById("sign-out")!.onclick = () => gateway.auth.signOut();
document.getElementById("teams")!.onclick = async () => {
  try {
    const teams = await gateway.resource.list({ type: "team" });
    show("notice", `${teams.length} teams`);
  } catch (error) {
    show("notice", error instanceof GatewayError ? error.message : String(error));
  }
};

try {
  if (new URLSearchParams(location.search).has("code")) await gateway.auth.handleRedirectCallback();
} catch (error) {
  show("notice", error instanceof GatewayError ? error.message : String(error));
}
await gateway.auth.getSession(); // onChange says who is signed in
