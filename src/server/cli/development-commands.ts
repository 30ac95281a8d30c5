/**
 * The development commands: dev, token, tui. The serve-only build (scripts/build.ts) replaces this
 * module with one that has none of them, so `gateway-serve --help` lists only what it contains and
 * their code (the development provider, the demo app, Ink) stays out of that binary.
 */
import { type ParsedArgs, UsageError, withArgs } from "./args.ts";
import type { Command } from "./command.ts";

const DEV = {
  name: "dev",
  usage: `Usage: gateway dev [--app <origin>]...

Starts a development identity provider (any user name signs in), the gateway and the demo app
together, on loopback only, with the database ./data/dev.db and the key file ./data/dev-session.key.
PORT, ADMIN_PORT, DEV_IDP_PORT, DEMO_PORT and the other variables of gateway --help apply.
  --app <origin>  your own app at a loopback origin, e.g. --app http://localhost:3000 adds the app
                  and public client "local-3000" (redirect URIs <origin>/ and <origin>/callback);
                  repeatable. GATEWAY_CONFIG's apps are registered too (loopback addresses only).`,
  options: { app: { type: "string", multiple: true } },
} as const;

/** The apps the --app flags add; a value that is not a loopback origin, or a port given twice, is refused. */
async function flagApps(values: ParsedArgs["values"]) {
  const { appFromOrigin, DevAppError } = await import("../dev-own-apps.ts");
  const apps = ((values.app as string[] | undefined) ?? []).map((origin) => {
    try {
      return appFromOrigin(origin);
    } catch (error) {
      throw error instanceof DevAppError ? new UsageError("dev", error.message) : error;
    }
  });
  const twice = apps.find((app, i) => apps.findIndex((other) => other.id === app.id) !== i);
  if (twice) throw new UsageError("dev", `--app names the app "${twice.id}" twice (one app per port)`);
  return apps;
}

const TOKEN = {
  name: "token",
  usage: `Usage: gateway token <user> [--client <id>]

Signs <user> in through a running gateway dev, as a browser would, and prints an access token.
  --client <id>  one of gateway dev's clients (default demo-web)`,
  options: { client: { type: "string" } },
  positionals: [1, 1],
} as const;

export const DEVELOPMENT_COMMANDS: Command[] = [
  {
    name: "dev",
    summary: "start a development identity provider, the gateway and the demo app together",
    run: (argv) =>
      withArgs(DEV, argv, async ({ values }) => {
        const apps = await flagApps(values);
        const { runDev } = await import("../dev.ts");
        await runDev({ apps });
        return -1;
      }),
  },
  {
    name: "token",
    summary: "print an access token from gateway dev's identity provider: token <user> [--client <id>]",
    run: (argv) =>
      withArgs(TOKEN, argv, async ({ values, positionals }) => {
        const { runToken } = await import("../token-command.ts");
        return runToken(positionals[0]!, values.client as string | undefined);
      }),
  },
  {
    name: "tui",
    summary:
      "the operator dashboard over the admin API (--url/ADMIN_URL, --token/ADMIN_TOKEN, --readonly, --json)",
    run: async (argv) => {
      const { runTui } = await import("../../tui/main.tsx");
      return runTui(argv);
    },
  },
];

/** What a command of the full build that this build leaves out answers (none here: every one is in). */
export function leftOut(_name: string): string | undefined {
  return undefined;
}
