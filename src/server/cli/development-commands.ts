/**
 * The development commands: dev, token, tui. The serve-only build (scripts/build.ts) replaces this
 * module with one that has none of them, so `gateway-serve --help` lists only what it contains and
 * their code (the development provider, the demo app, Ink) stays out of that binary.
 */
import { withArgs } from "./args.ts";
import type { Command } from "./command.ts";

const DEV = {
  name: "dev",
  usage: `Usage: gateway dev

Starts a development identity provider (any user name signs in), the gateway and the demo app
together, on loopback only, with the database ./data/dev.db and the key file ./data/dev-session.key.
PORT, ADMIN_PORT, DEV_IDP_PORT, DEMO_PORT and the other variables of gateway --help apply.`,
} as const;

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
      withArgs(DEV, argv, async () => {
        const { runDev } = await import("../dev.ts");
        await runDev();
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
