/**
 * Drives the real `bun src/tui/cli.ts` in a private tmux server: start a pane, send keys one call at a
 * time (keys sent together coalesce into one input chunk), type text literally, wait for a pattern on the
 * screen. tmux runs through Bun.spawn, never spawnSync, so a gateway in this test's process keeps serving
 * while we wait. CI is unset in the pane, or Ink draws nothing until exit.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.ts";

export const hasTmux = Bun.which("tmux") !== null;
export const ROOT = join(import.meta.dir, "../..");

export class Tmux {
  private readonly dir = tempDir("tui-tmux-");
  readonly socket = join(this.dir, "tmux.sock");
  /** The server's settings: OSC 52 from a pane sets a tmux buffer (what a terminal's clipboard gets). */
  private readonly config = join(this.dir, "tmux.conf");

  constructor() {
    writeFileSync(this.config, "set -g set-clipboard on\n");
  }

  async run(...args: string[]): Promise<string> {
    const argv = ["tmux", "-S", this.socket, "-f", this.config, ...args];
    const child = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
    const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    return out;
  }

  /** Starts `gateway tui` with `args` in a new pane of `columns`x`rows`; the pane prints EXITED:<code>. */
  async start(name: string, args: string, size: { columns?: number; rows?: number; env?: string } = {}) {
    const command = `cd ${ROOT} && env -u CI -u NO_COLOR TERM=xterm-256color ${size.env ?? ""} bun src/tui/cli.ts ${args}; echo EXITED:$?; sleep 30`;
    await this.run(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(size.columns ?? 100),
      "-y",
      String(size.rows ?? 30),
      command,
    );
  }

  screen(name: string): Promise<string> {
    return this.run("capture-pane", "-p", "-t", name);
  }

  /** One key (a tmux key name such as Enter, Escape, or one character). */
  key(name: string, key: string): Promise<string> {
    return this.run("send-keys", "-t", name, key);
  }

  /** Text typed as it is, one character per call (as a person types). */
  async type(name: string, text: string): Promise<void> {
    for (const ch of text) await this.run("send-keys", "-t", name, "-l", ch);
  }

  async waitFor(name: string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const text = await this.screen(name);
      if (pattern.test(text)) return text;
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
      await Bun.sleep(80);
    }
  }

  /** Runs a `:` command (once the prompt is up). */
  async command(name: string, text: string): Promise<void> {
    await this.key(name, ":");
    await this.waitFor(name, /^:_ /m);
    await this.type(name, text);
    await this.key(name, "Enter");
  }

  kill(): Promise<string> {
    return this.run("kill-server");
  }
}
