/**
 * Measures the figures the documentation states about the build and the code, each as the pages write
 * it: the SDK's tarball as npm packs it, the operations of each listener's OpenAPI document as the
 * gateway serves it, every error code, the versions in file names, and the binaries as `bun run build`
 * and `bun run build:serve` make them (their size, the JavaScript inside, `serve`'s memory once ready).
 * Nothing is copied from the docs or guessed: a figure that changes here is stale there.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { API_ERROR_CODES } from "../../packages/sdk/src/codes.gen.ts";
import { buildAdminApp, buildPublicApp } from "../../src/server/app.ts";
import { AppRegistry, DEFAULT_APPS } from "../../src/server/apps/registry.ts";
import { loadConfig } from "../../src/server/config.ts";
import { createGateway } from "../../src/server/gateway.ts";
import { waitReady } from "../../tests/helpers/ready.ts";
import { freePort } from "../../tests/helpers/stack.ts";
import { ROOT } from "./docs.ts";

export interface FigureGroup {
  names: readonly string[];
  /** "build" compiles and starts the binaries (seconds, and only where the figures were measured). */
  cost: "cheap" | "build";
  measure(work: string): Promise<Record<string, string>>;
}

/** Figures inside code blocks, where a marker would show: the version in a file name or a banner. */
export const PATTERNS: Readonly<Record<string, RegExp>> = {
  "gateway-version": /gateway (\d+\.\d+\.\d+) \(Bun /,
  "sdk-version": /session-gateway-sdk-(\d+\.\d+\.\d+)\.tgz/,
};

const version = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8")).version as string;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function run(command: string[], cwd = ROOT): string {
  const done = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`${command.join(" ")}: ${done.stderr.toString().trim()}`);
  return done.stdout.toString();
}

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
const operations = (document: { paths: Record<string, object> }) =>
  Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => METHODS.has(key))).length;

async function openApiOperations(work: string): Promise<Record<string, string>> {
  const token = "figures";
  const gateway = await createGateway({
    config: loadConfig({ DATABASE_PATH: join(work, "gateway.db"), ADMIN_TOKEN: token }),
    apps: new AppRegistry(DEFAULT_APPS, { acceptAnyClient: true }),
    log: () => {},
  });
  try {
    const publicDoc = await buildPublicApp(gateway).handle(new Request("http://localhost/openapi.json"));
    const adminDoc = await buildAdminApp(gateway).handle(
      new Request("http://localhost/openapi.json", { headers: { authorization: `Bearer ${token}` } }),
    );
    return {
      "public-operations": String(operations(await publicDoc.json())),
      "admin-operations": String(operations(await adminDoc.json())),
    };
  } finally {
    await gateway.close();
  }
}

/** `bun run build` or `build:serve` into `work`: the binary's path and the two sizes build.ts prints. */
function buildBinary(work: string, serveOnly: boolean) {
  const binary = join(work, serveOnly ? "gateway-serve" : "gateway");
  const printed = run(["bun", "scripts/build.ts", binary, ...(serveOnly ? ["--serve-only"] : [])]);
  const sizes = /: ([\d.]+ MB), of which ([\d.]+ MB) is the gateway's JavaScript/.exec(printed);
  if (!sizes) throw new Error(`scripts/build.ts printed no sizes: ${printed}`);
  return { binary, size: sizes[1]!, javascript: sizes[2]! };
}

/** `binary serve` started in an empty folder: its resident memory once /readyz answers. */
async function serveMemory(binary: string, work: string): Promise<string> {
  const cwd = join(work, `run-${binary.split("/").at(-1)}`);
  mkdirSync(cwd);
  const port = freePort();
  const env = { PATH: process.env.PATH ?? "", PORT: String(port), ADMIN_PORT: String(freePort()) };
  const child = Bun.spawn([binary, "serve"], { cwd, env, stdout: "ignore", stderr: "ignore" });
  try {
    await waitReady(`http://127.0.0.1:${port}`);
    const kib = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]);
    return `${Math.round(kib / 1024)} MB`;
  } finally {
    child.kill();
    await child.exited;
  }
}

async function binaries(work: string): Promise<Record<string, string>> {
  const hello = join(work, "hello.ts");
  writeFileSync(hello, 'console.log("hello");\n');
  run(["bun", "build", "--compile", hello, "--outfile", join(work, "hello")], work);
  const full = buildBinary(work, false);
  const serveOnly = buildBinary(work, true);
  return {
    "binary-bun": Bun.version,
    "binary-runtime": mb(statSync(join(work, "hello")).size),
    "binary-gateway": full.size,
    "binary-gateway-js": full.javascript,
    "binary-gateway-rss": await serveMemory(full.binary, work),
    "binary-serve": serveOnly.size,
    "binary-serve-js": serveOnly.javascript,
    "binary-serve-rss": await serveMemory(serveOnly.binary, work),
  };
}

export const GROUPS: readonly FigureGroup[] = [
  {
    names: ["gateway-version", "sdk-version"],
    cost: "cheap",
    measure: async () => ({
      "gateway-version": version("package.json"),
      "sdk-version": version("packages/sdk/package.json"),
    }),
  },
  {
    names: ["sdk-tarball"],
    cost: "cheap",
    measure: async (work) => {
      const packed = run(["npm", "pack", "--pack-destination", work, "--json"], join(ROOT, "packages/sdk"));
      const [{ size }] = JSON.parse(packed.slice(packed.indexOf("[")));
      return { "sdk-tarball": `${Math.round(size / 1024)} KB` };
    },
  },
  { names: ["public-operations", "admin-operations"], cost: "cheap", measure: openApiOperations },
  {
    names: ["error-codes", "error-code-count"],
    cost: "cheap",
    measure: async () => ({
      "error-codes": API_ERROR_CODES.map((code) => `\`${code}\``).join(", "),
      "error-code-count": String(API_ERROR_CODES.length),
    }),
  },
  {
    names: [
      "binary-bun",
      "binary-runtime",
      "binary-gateway",
      "binary-gateway-js",
      "binary-gateway-rss",
      "binary-serve",
      "binary-serve-js",
      "binary-serve-rss",
    ],
    cost: "build",
    measure: binaries,
  },
];

/** The binaries' figures were measured on Linux x86-64; elsewhere they are not comparable. */
export const BUILD_PLATFORM = process.platform === "linux" && process.arch === "x64";
