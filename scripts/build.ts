/**
 * Builds the single binary `dist/gateway` (Bun.build with `compile`). Migrations are embedded through
 * text imports (src/server/db/migrations.gen.ts), so the binary needs no files beside it. Ink (the
 * TUI) optionally imports `react-devtools-core`, which does not bundle: a stub module replaces it.
 */
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

const outfile = process.argv[2] ?? "dist/gateway";
const result = await Bun.build({
  entrypoints: ["src/server/main.ts"],
  compile: { outfile },
  // Whitespace only. The development provider's library looks token lifetimes up by class name
  // (`class AccessToken extends …` returned from an arrow function): renaming identifiers, and even
  // syntax minification, drop that name (`keepNames` does not cover class expressions), and then every
  // token request fails.
  minify: { whitespace: true, syntax: false, identifiers: false },
  sourcemap: "none",
  plugins: [stubDevtools],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`built ${outfile}`);
