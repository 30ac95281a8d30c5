/** Preloaded by `bun test` (bunfig.toml): what every run does once, after its last test. */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./helpers/temp.ts";

afterAll(removeTempDirs);
