// A server acting as its users with their access tokens, under plain Node 20+ (Bun and Deno too):
//   node server.mjs http://127.0.0.1:8787 "$(gateway token alice)" "$(gateway token bob)"
import { createClient, GatewayError } from "@session-gateway/sdk";

const [gatewayUrl, aliceToken, bobToken] = process.argv.slice(2);
const alice = createClient({ gatewayUrl, accessToken: aliceToken });
const bob = createClient({ gatewayUrl, accessToken: bobToken });

const { userId: aliceId } = await alice.auth.getSession(); // who the token belongs to
const { userId: bobId } = await bob.auth.getSession();
const team = await alice.resource.create("team", { name: "Red team" });
await alice.resource(team.id).members.invite(bobId, { role: "writer" });
await bob.resource(team.id).members.accept();
for (const member of await alice.resource(team.id).members.list())
  console.log(`${team.name}: ${member.userId} is ${member.role} (${member.state})`);

try {
  await bob.resource(team.id).delete();
} catch (error) {
  if (!(error instanceof GatewayError)) throw error;
  console.log(`${bobId} may not delete it: ${error.code}`); // forbidden: only its owner may
}
await alice.resource(team.id).delete();
console.log(`${aliceId} deleted ${team.name}`);
