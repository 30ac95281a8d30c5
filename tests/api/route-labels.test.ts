/**
 * The access log and /metrics name each request by its route's template, which the router hands to
 * the pipeline (nothing else reads the path): every route either app serves is labelled by its own
 * template, answered or refused, and a request no route takes (or refused before routing: the header
 * limit, the admin token) is "other"; ids and queries never.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildAdminApp, buildPublicApp } from "../../src/server/app.ts";
import { requestFacts } from "../../src/server/http/request-context.ts";
import { type InProcess, inProcess } from "../helpers/in-process.ts";

let gw: InProcess;
beforeAll(async () => {
  gw = await inProcess({ ADMIN_TOKEN: TOKEN });
});
afterAll(() => gw.gateway.close());

const ID = "0195e3c4-7b1a-7000-8000-abcdefabcdef";
const TOKEN = "route-labels-admin-token-0123456789";

test("every served route is labelled by its own template, ids and queries never", async () => {
  const apps = [buildPublicApp(gw.gateway), buildAdminApp(gw.gateway)];
  let labelled = 0;
  for (const app of apps)
    for (const route of app.routes) {
      if (route.method === "WS" || route.path.startsWith("/admin/v1/events")) continue;
      const path = route.path.replace(/:([^/]+)/g, ID);
      // The admin token is checked before routing: a request refused there has no route yet ("other").
      const headers = { authorization: `Bearer ${TOKEN}` };
      const request = new Request(`http://localhost${path}?q=${ID}`, { method: route.method, headers });
      const answer = await app.handle(request);
      await answer.body?.cancel();
      expect(requestFacts(request).route, `${route.method} ${route.path}`).toBe(route.path);
      labelled++;
    }
  expect(labelled).toBeGreaterThan(40);
  for (const path of [`/v1/resources/${ID}/unknownAction`, "/no/such/path"]) {
    const request = new Request(`http://localhost${path}`);
    expect((await apps[0]!.handle(request)).status).toBe(404);
    expect(requestFacts(request).route).toBe("other");
  }
});
