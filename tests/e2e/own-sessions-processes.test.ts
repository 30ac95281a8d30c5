/**
 * Ending one of a person's sessions is seen by every process on the database at once: process 1 has
 * just served the session (its cache holds it), process 0 ends it (`DELETE /auth/sessions/:id`), and
 * process 1 refuses its cookie on the very next request, with the reason `signed_out_elsewhere`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AppsFile } from "../../src/server/apps/model.ts";
import { sessionFor } from "../helpers/in-process.ts";
import { type Processes, startProcesses } from "../helpers/processes.ts";

const CLIENT = "own-web";
const APPS: AppsFile = {
  apps: [{ id: "own", clients: [{ clientId: CLIENT, redirectUris: ["http://127.0.0.1:5999/callback"] }] }],
};

let processes: Processes;
beforeAll(async () => {
  processes = await startProcesses(APPS, 2);
}, 30_000);
afterAll(() => processes?.stop(), 60_000);

const report = async (url: string, cookie: string) =>
  (await fetch(`${url}/auth/session`, { headers: { cookie } })).json();

test("a session ended through one process is refused by the other on the next request", async () => {
  const [first, second] = processes.urls as [string, string];
  const laptop = await sessionFor({ gateway: processes.local }, "moving", CLIENT);
  const phone = await sessionFor({ gateway: processes.local }, "moving", CLIENT);
  const phoneId = (await processes.local.sessions.resolve(phone.cookie!))!.row.id;
  expect(await report(second, phone.cookie!)).toEqual({ authenticated: true, user_id: "moving" });

  const res = await fetch(`${first}/auth/sessions/${phoneId}`, { method: "DELETE", headers: laptop });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ ok: true, ended: 1 });
  expect(await report(second, phone.cookie!)).toEqual({
    authenticated: false,
    reason: "signed_out_elsewhere",
  });
  expect(await report(second, laptop.cookie!)).toEqual({ authenticated: true, user_id: "moving" });
});
