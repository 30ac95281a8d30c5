/** Admin routes for a data service and for deploys: the seam and app configuration. */
import { Elysia, t } from "elysia";
import { deployApp } from "../apps/deploy.ts";
import type { AppDef } from "../apps/model.ts";
import { AppsFileError, validateDeploy } from "../apps/registry.ts";
import { Refusal } from "../domain/refusal.ts";
import type { Gateway } from "../gateway.ts";
import { AdminId, adminParams } from "./params.ts";
import { adminDocs as docs } from "./responses.ts";

export function dataRoutes(gateway: Gateway) {
  const { membership, seam } = gateway;
  return new Elysia({ name: "admin-data-routes" })
    .post(
      "/admin/v1/apps/:id/deploy",
      async ({ params, body }) => {
        // Validated like the apps file (strict fields, absolute URIs, client ids unique across apps)
        // before anything is written, so a refused deploy changes nothing.
        let app: AppDef;
        try {
          app = validateDeploy(gateway.apps, params.id, body);
        } catch (error) {
          if (error instanceof AppsFileError)
            throw new Refusal("invalid_request", { appsFile: error.message });
          throw error;
        }
        const deployment = await deployApp(
          gateway.storage,
          membership.store,
          gateway.apps,
          app,
          gateway.sealer,
        );
        return { ok: true, deployment };
      },
      { params: adminParams("id"), detail: docs.deploy },
    )
    .post(
      "/admin/v1/data/authorize-write",
      async ({ body }) => ({
        allowed: true,
        ...(await membership.authorizeWrite(body.resourceId, body.userId)),
      }),
      { body: t.Object({ resourceId: AdminId, userId: AdminId }), detail: docs.authorizeWrite },
    )
    .post(
      "/admin/v1/data/links",
      async ({ body }) => {
        const { joined } = await membership.authorizeWrite(body.resourceId, body.userId, (tx, resource) =>
          seam.link(tx, resource.id, body.table, body.rowId, body.userId, body.data, Date.now()),
        );
        return { ok: true, joined };
      },
      {
        body: t.Object({
          resourceId: AdminId,
          table: t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" }),
          rowId: AdminId,
          userId: AdminId,
          data: t.Optional(t.Unknown()),
        }),
        detail: docs.link,
      },
    )
    .get(
      "/admin/v1/data/links",
      async ({ query }) => {
        if (!(await membership.store.getResource(query.resourceId))) throw new Refusal("not_found");
        return seam.linkedRows(query.resourceId);
      },
      { query: t.Object({ resourceId: AdminId }), detail: docs.links },
    );
}
