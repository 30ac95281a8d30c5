/**
 * Preloaded by `bun test` (bunfig.toml), once per run: every test may take 30 s (suites start real
 * listeners, processes and a real identity provider; Bun's default is 5 s, and bunfig.toml cannot change
 * it, only `--timeout` or this), and the temporary directories are removed after the last test.
 */
import { afterAll, setDefaultTimeout } from "bun:test";
import { removeTempDirs } from "./helpers/temp.ts";

setDefaultTimeout(30_000);
afterAll(removeTempDirs);
