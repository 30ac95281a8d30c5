/**
 * How a route declares that it answers without waiting when its answer is in memory. Elysia compiles
 * each route ahead of time and reads its handler's source to decide two things: whether to `await` it
 * (any `return f(` or `=> f(` counts as asynchronous, so nearly every handler is awaited), and which
 * parts of the context to prepare. A route declared with `synchronous` hands Elysia a bound copy, whose
 * source cannot be read: the compiled handler calls it without `await` (a synchronous answer stays
 * synchronous end to end), and prepares only what every route gets (the request, its path parameters,
 * and the query when the route has a query schema). Such a handler may still answer a promise; the
 * pipeline's answer hook writes its value, or maps its failure, when it settles (plumbing.ts).
 */
export function synchronous<T extends (context: never) => unknown>(handler: T): T {
  return handler.bind(undefined) as T;
}
