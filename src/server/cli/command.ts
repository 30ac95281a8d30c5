/**
 * A command of the binary: its name, its line in `gateway --help`, and how it runs. Each command parses
 * its own arguments through `withArgs` (args.ts), so its usage and refusals are its own.
 */
export interface Command {
  name: string;
  /** Its line(s) in `gateway --help`, after the name. */
  summary: string;
  /** Runs with the arguments after the name; the exit code, or -1 when it keeps running (a server). */
  run(argv: string[]): Promise<number>;
}
