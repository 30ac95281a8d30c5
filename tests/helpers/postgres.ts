/**
 * A throwaway PostgreSQL for tests: Debian's PostgreSQL (initdb, pg_ctl) in a temporary folder, on a
 * free port of 127.0.0.1, trust authentication, fsync off. PostgreSQL refuses to run as root, so as
 * root the server runs as the `postgres` user the package creates. One cluster per test process
 * (`sharedPostgres`), started on first use and stopped when the process exits; each gateway gets a
 * database of its own (`createDatabase`).
 *
 *   const pg = await sharedPostgres();
 *   const url = await pg.createDatabase();   // postgres://postgres@127.0.0.1:PORT/gw_…
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "./stack.ts";

export interface PostgresCluster {
  url: string;
  port: number;
  /** A new empty database; returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  dropDatabase(url: string): Promise<void>;
  stop(): void;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions)
    if (existsSync(join(root, version, "bin", "initdb"))) return join(root, version, "bin");
  throw new Error("PostgreSQL is not installed (apt-get install -y postgresql)");
}

const asRoot = process.getuid?.() === 0;
/** The command, run as `postgres` when we are root. */
const asServerUser = (command: string[]) =>
  asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command;

function postgresUid(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  if (!line) throw new Error("no postgres user (apt-get install -y postgresql creates it)");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function run(command: string[], what: string): void {
  const result = Bun.spawnSync(asServerUser(command), { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0)
    throw new Error(
      `${what} failed (${result.exitCode}):\n${result.stdout.toString()}${result.stderr.toString()}`,
    );
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "sg-pg-"));
  chmodSync(dir, 0o700);
  if (asRoot) {
    const { uid, gid } = postgresUid();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = freePort();
  run(
    [join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"],
    "initdb",
  );
  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=1000",
    "-c shared_buffers=128MB",
  ].join(" ");
  run(
    [
      join(bin, "pg_ctl"),
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-w",
      "-t",
      "30",
      "-o",
      settings,
      "start",
    ],
    "pg_ctl start",
  );
  // Stops the server and removes its folder once this process is gone, however it ends (kill -9 included).
  const watchdog = Bun.spawn(
    [
      "sh",
      "-c",
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${asServerUser([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]).join(" ")} >/dev/null 2>&1; rm -rf '${dir}'`,
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
  );
  watchdog.unref();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = postgres(url, { max: 2, onnotice: () => {} });
  let stopped = false;
  let counter = 0;
  return {
    url,
    port,
    async createDatabase(prefix = "gw") {
      const name = `${prefix}_${process.pid}_${++counter}_${Date.now().toString(36)}`;
      await admin.unsafe(`CREATE DATABASE "${name}"`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async dropDatabase(dbUrl) {
      const name = new URL(dbUrl).pathname.slice(1);
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      void admin.end({ timeout: 0 }).catch(() => {});
      Bun.spawnSync(asServerUser([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]), {
        stdout: "ignore",
        stderr: "ignore",
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let shared: Promise<PostgresCluster> | undefined;

/** The test process's cluster: started once, stopped when the process exits. */
export function sharedPostgres(): Promise<PostgresCluster> {
  shared ??= startPostgres().then((cluster) => {
    process.on("exit", () => cluster.stop());
    return cluster;
  });
  return shared;
}

/** Which engine the suite runs on: TEST_DATABASE=postgres runs every gateway of the suite on PostgreSQL. */
export const testEngine: "sqlite" | "postgres" =
  process.env.TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
