/**
 * Through a real terminal (tmux) against a real gateway: a database holding ids and event data with
 * escape sequences (as stored before subjects were checked, or written by hand) is drawn with each
 * control character as "?", and the terminal never acts on one: the pane's title stays as it was (an
 * OSC 0 from data would set it) and no bell rings (a BEL from data would).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/server/config.ts";
import { type RunningGateway, startGateway } from "../../src/server/serve.ts";
import { databaseEnv, sql } from "../helpers/db.ts";
import { tempDir } from "../helpers/temp.ts";
import { hasTmux, Tmux } from "./tmux-kit.ts";

const EVIL = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202emallory";
const target = "hostile";
const tmux = new Tmux();
let running: RunningGateway | undefined;

afterAll(async () => {
  if (hasTmux) await tmux.kill();
  await running?.stop();
}, 30_000);

describe.skipIf(!hasTmux)("hostile data in a real terminal", () => {
  test("sessions and events with escape sequences: drawn as ?, the title unchanged, no bell", async () => {
    const config = loadConfig({
      PORT: "0",
      ADMIN_PORT: "0",
      ...(await databaseEnv(tempDir(), "gateway.db")),
      ADMIN_TOKEN: "tmux-admin",
      COOKIE_SECURE: "false",
    });
    running = await startGateway({ config, log: () => {} });
    const db = sql(running.gateway.storage);
    const now = Date.now();
    await db.run(
      "INSERT INTO sessions (id, user_id, client_id, created_at, last_seen_at, access_expires_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      "s-hostile",
      EVIL,
      "web",
      now,
      now,
      now + 3_600_000,
      now + 86_400_000,
    );
    await db.run(
      "INSERT INTO events (type, actor, user_id, data, at) VALUES (?, ?, ?, ?, ?)",
      "session.created",
      EVIL,
      EVIL,
      JSON.stringify({ sessionId: `s${EVIL}` }),
      now,
    );
    await tmux.start(target, `--url ${running.adminUrl} --token tmux-admin`, { columns: 140, rows: 30 });
    await tmux.waitFor(target, / CONNECTED/);
    const title = (await tmux.run("display", "-p", "-t", target, "#{pane_title}")).trim();
    await tmux.key(target, "2");
    await tmux.waitFor(target, /\?\]0;pwned\?\?\[2J\?31m\?mallory/);
    await tmux.key(target, "5");
    await tmux.waitFor(target, /sessionId=s\?\]0;pwned/);
    await tmux.key(target, "2");
    await tmux.key(target, "x");
    await tmux.waitFor(target, /Revoke session s-hostile \(user \?\]0;pwned/);
    await tmux.key(target, "n");
    await tmux.waitFor(target, /Cancelled: nothing changed/);
    expect((await tmux.run("display", "-p", "-t", target, "#{pane_title}")).trim()).toBe(title);
    expect((await tmux.run("display", "-p", "-t", target, "#{window_bell_flag}")).trim()).toBe("0");
    await tmux.key(target, "q");
    await tmux.waitFor(target, /EXITED:0/);
  }, 60_000);
});
