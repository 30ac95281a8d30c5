/**
 * The access log and /metrics name each request by its route's template: every route either app serves
 * must map to its own template (a new route missing from the table would be logged as "other").
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildAdminApp, buildPublicApp } from "../../src/server/app.ts";
import { routeLabel } from "../../src/server/http/metrics.ts";
import { type InProcess, inProcess } from "../helpers/in-process.ts";

let gw: InProcess;
beforeAll(async () => {
  gw = await inProcess();
});
afterAll(() => gw.gateway.close());

test("every served route is labelled by its own template, ids and queries never", () => {
  const routes = [...buildPublicApp(gw.gateway).routes, ...buildAdminApp(gw.gateway).routes];
  expect(routes.length).toBeGreaterThan(40);
  for (const route of routes) {
    const concrete = route.path.replace(/:([^/]+)/g, "0195e3c4-7b1a-7000-8000-abcdefabcdef");
    expect(routeLabel(concrete), route.path).toBe(route.path);
  }
  expect(routeLabel("/v1/resources/some-id/unknownAction")).toBe("other");
  expect(routeLabel("/no/such/path")).toBe("other");
});
