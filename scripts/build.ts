/**
 * Builds the single binary (Bun.build with `compile`). Migrations are embedded through text imports
 * (src/server/db/migrations.gen.ts), so the binary needs no files beside it. Ink (the TUI) optionally
 * imports `react-devtools-core`, which does not bundle: a stub module replaces it.
 *
 *   bun scripts/build.ts [outfile]               dist/gateway: every command
 *   bun scripts/build.ts [outfile] --serve-only  dist/gateway-serve: serve, migrate and keys only; the
 *                                                development provider, the demo app and the TUI (and
 *                                                their libraries) are left out of the binary
 *
 * It prints the binary's size and the size of the JavaScript inside it.
 */
import { statSync } from "node:fs";

const args = process.argv.slice(2);
const serveOnly = args.includes("--serve-only");
const outfile =
  args.find((arg) => !arg.startsWith("--")) ?? (serveOnly ? "dist/gateway-serve" : "dist/gateway");

const stubDevtools: Bun.BunPlugin = {
  name: "stub-react-devtools-core",
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({
      path: "react-devtools-core",
      namespace: "stub",
    }));
    build.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      contents: "export default { initialize() {}, connectToDevTools() {} };",
      loader: "js",
    }));
  },
};

/**
 * The development commands (dev, token, tui) are listed in one module, which the serve-only build
 * replaces with one that lists none: `--help` then shows only what the binary contains, and a
 * development command answers one line saying where it is.
 */
const leaveOutDevelopment: Bun.BunPlugin = {
  name: "leave-out-development-commands",
  setup(build) {
    build.onResolve({ filter: /^\.\/cli\/development-commands\.ts$/ }, (args) =>
      args.importer.endsWith("src/server/main.ts") ? { path: args.path, namespace: "serve-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "serve-only" }, () => ({
      contents: `export const DEVELOPMENT_COMMANDS = [];
export function leftOut(name) {
  return ["dev", "token", "tui"].includes(name)
    ? "gateway: dev, token and tui are not in this serve-only build; the full build (bun scripts/build.ts) has them"
    : undefined;
}`,
      loader: "js",
    }));
  },
};

const options = {
  entrypoints: ["src/server/main.ts"],
  // Whitespace only. The development provider's library looks token lifetimes up by class name
  // (`class AccessToken extends …` returned from an arrow function): renaming identifiers, and even
  // syntax minification, drop that name (`keepNames` does not cover class expressions), and then every
  // token request fails.
  minify: { whitespace: true, syntax: false, identifiers: false },
  sourcemap: "none" as const,
  target: "bun" as const,
  plugins: serveOnly ? [stubDevtools, leaveOutDevelopment] : [stubDevtools],
};
const script = await Bun.build(options);
const result = script.success ? await Bun.build({ ...options, compile: { outfile } }) : script;
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const javascript = script.outputs.reduce((sum, output) => sum + output.size, 0);
console.log(
  `built ${outfile}: ${mb(statSync(outfile).size)}, of which ${mb(javascript)} is the gateway's JavaScript`,
);
