/**
 * Regression (issue 29, "each aggregate owns its tables"): the account deletion renamed the deleted
 * user's accepted invites (`members.invited_by` → the pseudonym) with its own UPDATE, behind the
 * membership store's read cache. A membership row cached before the deletion kept naming the deleted
 * user's id as its inviter: the store answered what the database no longer held, and the deleted id
 * stayed in memory. The rename now goes through the store, which evicts each row it changes once the
 * deletion commits. (Only SQLite caches memberships; on PostgreSQL every read goes to the database.)
 */
import { afterAll, expect, test } from "bun:test";
import { type Json, makeKit } from "../helpers/resources-kit.ts";

const ADMIN_TOKEN = "deletion-cache-admin";
const k = await makeKit(undefined, { ADMIN_TOKEN });
afterAll(() => k.gw.gateway.close());

const OWNER = "dc-owner";
const DELETED = "dc-admin";
const INVITEE = "dc-invitee";

test("after a deletion, a membership the deleted user invited reads with the pseudonym, from the cache as from the database", async () => {
  const { store } = k.gw.gateway.membership;
  await k.users(OWNER, DELETED, INVITEE);
  const team = (await k.create(OWNER, "team", "Invited by a deleted admin")).id;
  await k.addMember(OWNER, team, DELETED, "admin");
  await k.addMember(DELETED, team, INVITEE, "writer");
  // Read (and on SQLite cached) before the deletion, as any request of the invitee does.
  expect((await k.get(INVITEE, `/v1/resources/${team}`)).status).toBe(200);
  expect((await store.getMembership(team, INVITEE))?.invitedBy).toBe(DELETED);

  const res = await k.gw.admin(`/admin/v1/users/${DELETED}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  const { pseudonym } = (await res.json()) as Json;
  expect(pseudonym).toMatch(/^deleted:/);

  expect((await k.member(team, INVITEE))?.invited_by).toBe(pseudonym);
  const read = await store.getMembership(team, INVITEE);
  expect({ invitedBy: read?.invitedBy, role: read?.role, state: read?.state }).toEqual({
    invitedBy: pseudonym,
    role: "writer",
    state: "active",
  });
  // The deleted admin's own membership is gone, from the cache too.
  expect(await store.getMembership(team, DELETED)).toBeUndefined();
});
