/**
 * The SDK package declares its own types (no server import, no DOM), so this checks they have not
 * drifted from the server: the views equal the server's TypeBox models at compile time (`tsc` fails
 * otherwise), and the generated code list is the server's current one.
 */
import { expect, test } from "bun:test";
import type {
  BrowseItem,
  MemberEntry,
  RequestedView,
  ResourceView,
  UserExport,
} from "../../packages/sdk/src/index.ts";
import type { UserExport as ServerUserExport } from "../../src/server/accounts/model.ts";
import type {
  BrowseItem as ServerBrowseItem,
  MemberEntry as ServerMemberEntry,
  RequestedView as ServerRequestedView,
  ResourceView as ServerResourceView,
} from "../../src/server/resources/model.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(verdict: Equal<A, B>) => verdict;

test("the SDK's views are the server's models", () => {
  expect(same<ResourceView, ServerResourceView>(true)).toBe(true);
  expect(same<RequestedView, ServerRequestedView>(true)).toBe(true);
  expect(same<BrowseItem, ServerBrowseItem>(true)).toBe(true);
  expect(same<MemberEntry, ServerMemberEntry>(true)).toBe(true);
  expect(same<UserExport, ServerUserExport>(true)).toBe(true);
});

test("the SDK's error codes are generated from the server's current lists", () => {
  const check = Bun.spawnSync(["bun", "scripts/gen-sdk-codes.ts", "--check"], {
    cwd: `${import.meta.dir}/../..`,
    stderr: "pipe",
  });
  expect(check.stderr.toString()).toBe("");
  expect(check.exitCode).toBe(0);
});
