/**
 * The OpenAPI 3.1 document of an app, served at `/openapi.json` on the app's own listener. Generated
 * by @elysiajs/openapi (`toOpenAPISchema`) from the routes Elysia serves: the TypeBox schemas requests
 * are validated with (body, query, path parameters) and each route's `detail` (operation-docs.ts).
 * Built on the first request, once every route is registered, and kept: routes never change after.
 * Nothing here touches a live route: the generator reads copies.
 *
 * Written for client generators: every view is a named component (openapi-components.ts), every
 * operation states its security (`[]` when it needs no credential), the server is the listener the
 * document was fetched from, and the info block carries the license.
 */
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import { OptionalKind, Type as T } from "@sinclair/typebox";
import { type AnyElysia, type DocumentDecoration, Elysia } from "elysia";
import { license, version } from "../../../package.json";
import { hoistComponents } from "./openapi-components.ts";
import { ErrorBody, type ErrorStatus, json, operation, withErrors } from "./operation-docs.ts";

export const OPENAPI_VERSION = "3.1.1";

export interface DocumentOptions {
  title: string;
  description: string;
  securitySchemes: Record<string, unknown>;
  /** Security every operation needs (the admin API's token); else each operation says its own. */
  security?: Array<Record<string, string[]>>;
  /** Errors every route of the listener answers (the admin API's token check). */
  errors?: ErrorStatus[];
  /**
   * The scheme of a header every state-changing call (not GET or HEAD) sends, unless its credential is
   * `exceptWith` (the CSRF header of the public listener, which a bearer token does not need).
   */
  stateChangingHeader?: { scheme: string; exceptWith: string };
}

type Requirement = Record<string, string[]>;

/** An operation's security as the document states it: its own, with the state-changing header added. */
function securityOf(method: string, own: Requirement[] | undefined, options: DocumentOptions) {
  if (options.security) return own;
  const header = options.stateChangingHeader;
  if (!header || method === "GET" || method === "HEAD") return own ?? [];
  return (own ?? [{}]).map((requirement) =>
    header.exceptWith in requirement ? requirement : { ...requirement, [header.scheme]: [] },
  );
}

/**
 * What plumbing.ts answers before any route: headers over 12 KiB, a Content-Length over 64 KiB, an
 * unexpected failure; and on a method with a body, a body that is not JSON, not an object, or late.
 */
function plumbingErrors(method: string): ErrorStatus[] {
  const always: ErrorStatus[] = [413, 431, 500];
  return method === "GET" || method === "HEAD" ? always : [400, 408, 415, ...always];
}

/**
 * Elysia's accessors of the whole app's routes and models, which @elysiajs/openapi reads too (protected
 * in Elysia's types): once a plugin is used, they answer for its parent.
 */
type Introspectable = {
  getGlobalRoutes(): AnyElysia["routes"];
  getGlobalDefinitions(): { type: Record<string, unknown> };
};

type Operation = {
  requestBody?: { required?: boolean };
  responses?: DocumentDecoration["responses"];
  security?: Requirement[];
};

export function openApiDocument(elysia: AnyElysia, options: DocumentOptions) {
  const app = elysia as unknown as Introspectable;
  const routes = app.getGlobalRoutes().map((route) => ({
    ...route,
    // plumbing's parser reads every body, as JSON only. The generator leaves out a body whose parser
    // is a function, so it is told the parser's media type instead.
    hooks: { ...route.hooks, parse: [{ fn: "json" }] },
  }));
  const view = { getGlobalRoutes: () => routes, getGlobalDefinitions: () => app.getGlobalDefinitions() };
  const generated = toOpenAPISchema(
    view as unknown as AnyElysia,
    { staticFile: false },
    undefined,
    undefined,
    OPENAPI_VERSION,
  );
  const paths = generated.paths as Record<string, Record<string, Operation>>;
  for (const route of routes) {
    const found = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    if (!found) continue;
    // The generator marks every body required; `t.Optional(t.Object(…))` may be left out.
    if (found.requestBody && (route.hooks.body as { [OptionalKind]?: string })?.[OptionalKind])
      found.requestBody.required = false;
    found.responses = withErrors(found.responses ?? {}, [
      ...plumbingErrors(route.method),
      ...(options.errors ?? []),
    ]);
    const security = securityOf(route.method, found.security, options);
    if (security) found.security = security;
  }
  const hoisted = hoistComponents(paths);
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: options.title,
      description: options.description,
      version,
      license: { name: license, identifier: license },
    },
    servers: [{ url: "/", description: "This listener: the address this document was fetched from." }],
    ...(options.security ? { security: options.security } : {}),
    paths: hoisted.value,
    components: {
      schemas: { ...generated.components.schemas, ...hoisted.schemas, Error: ErrorBody },
      securitySchemes: options.securitySchemes,
    },
  };
}

/** `GET /openapi.json`: this app's document. */
export function openApiRoute(options: DocumentOptions) {
  const plugin = new Elysia();
  let cached: { routes: number; body: string } | undefined;
  return plugin.get(
    "/openapi.json",
    () => {
      // Once used, the plugin's routes are its parent's: the whole app's.
      const routes = (plugin as unknown as Introspectable).getGlobalRoutes().length;
      if (cached?.routes !== routes)
        cached = { routes, body: JSON.stringify(openApiDocument(plugin, options)) };
      return new Response(cached.body, { headers: { "content-type": "application/json" } });
    },
    {
      detail: operation({
        operationId: "getOpenApiDocument",
        summary: "This document",
        tags: ["documentation"],
        responses: {
          200: json(T.Object({ openapi: T.String() }), "The OpenAPI 3.1 document of this listener."),
        },
        errors: [],
      }),
    },
  );
}
