/**
 * Prometheus metrics for `GET /metrics` on the admin listener: requests by route and status, one
 * latency histogram, plus gauges the admin side adds (token cache, sessions). Routes are labelled by
 * their pattern (ids replaced), so label cardinality stays bounded.
 */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const STATIC_ROUTES = new Set([
  "/",
  "/healthz",
  "/readyz",
  "/openapi.json",
  "/landing.js",
  "/metrics",
  "/auth/authorize",
  "/auth/token",
  "/auth/refresh",
  "/auth/logout",
  "/auth/backchannel-logout",
  "/auth/session",
  "/auth/sessions",
  "/auth/sessions/revoke-others",
  "/auth/origin",
  "/auth/consent",
  "/auth/consent-request",
  "/auth/consent/accept",
  "/auth/consent/reject",
  "/auth/kratos/flow",
  "/v1/me",
  "/v1/me/export",
  "/v1/resources",
  "/v1/resources/browse",
  "/v1/resources/static",
  "/admin/v1/overview",
  "/admin/v1/sessions",
  "/admin/v1/pending",
  "/admin/v1/resources",
  "/admin/v1/events",
  "/admin/v1/audit",
  "/admin/v1/data/authorize-write",
  "/admin/v1/data/links",
]);
const RESOURCE_ACTIONS = new Set([
  "members",
  "invite",
  "request",
  "accept",
  "reject",
  "join",
  "leave",
  "setRole",
  "remove",
  "transferOwnership",
  "acceptOwnership",
  "declineOwnership",
  "cancelOwnership",
]);
const PATTERNS: Array<[RegExp, string | ((m: RegExpExecArray) => string | undefined)]> = [
  [
    /^\/v1\/resources\/[^/]+(?:\/([A-Za-z]+))?$/,
    (m) =>
      m[1] === undefined
        ? "/v1/resources/:id"
        : RESOURCE_ACTIONS.has(m[1])
          ? `/v1/resources/:id/${m[1]}`
          : undefined,
  ],
  [/^\/auth\/sessions\/[^/]+$/, "/auth/sessions/:id"],
  [/^\/admin\/v1\/sessions\/[^/]+$/, "/admin/v1/sessions/:id"],
  [/^\/admin\/v1\/users\/[^/]+$/, "/admin/v1/users/:id"],
  [/^\/admin\/v1\/users\/[^/]+\/sessions$/, "/admin/v1/users/:id/sessions"],
  [/^\/admin\/v1\/users\/[^/]+\/export$/, "/admin/v1/users/:id/export"],
  [/^\/admin\/v1\/pending\/[^/]+\/[^/]+$/, "/admin/v1/pending/:resourceId/:userId"],
  [/^\/admin\/v1\/resources\/[^/]+\/members$/, "/admin/v1/resources/:id/members"],
  [/^\/admin\/v1\/resources\/[^/]+\/setRole$/, "/admin/v1/resources/:id/setRole"],
  [/^\/admin\/v1\/resources\/[^/]+\/remove$/, "/admin/v1/resources/:id/remove"],
  [/^\/admin\/v1\/resources\/[^/]+$/, "/admin/v1/resources/:id"],
  [/^\/admin\/v1\/apps\/[^/]+\/deploy$/, "/admin/v1/apps/:id/deploy"],
];

/** The route pattern of a path (ids replaced), or "other": labels stay a small, fixed set. */
export function routeLabel(path: string): string {
  if (STATIC_ROUTES.has(path)) return path;
  for (const [pattern, label] of PATTERNS) {
    const match = pattern.exec(path);
    if (!match) continue;
    const found = typeof label === "string" ? label : label(match);
    if (found !== undefined && found.length <= 64) return found;
  }
  return "other";
}

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly buckets = new Array<number>(BUCKETS.length).fill(0);
  private sum = 0;
  private count = 0;

  /** One request: `route` is already a label (routeLabel). */
  observeRoute(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    if (i < BUCKETS.length) this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }

  render(gauges: Record<string, { help: string; value: number }>): string {
    const lines = [
      "# HELP gateway_requests_total Requests by route and status.",
      "# TYPE gateway_requests_total counter",
    ];
    for (const [key, n] of this.requests) {
      const [method, route, status] = key.split(" ");
      lines.push(`gateway_requests_total{method="${method}",route="${route}",status="${status}"} ${n}`);
    }
    lines.push(
      "# HELP gateway_request_duration_seconds Request latency.",
      "# TYPE gateway_request_duration_seconds histogram",
    );
    let cumulative = 0;
    for (const [i, le] of BUCKETS.entries()) {
      cumulative += this.buckets[i]!;
      lines.push(`gateway_request_duration_seconds_bucket{le="${le}"} ${cumulative}`);
    }
    lines.push(`gateway_request_duration_seconds_bucket{le="+Inf"} ${this.count}`);
    lines.push(
      `gateway_request_duration_seconds_sum ${this.sum}`,
      `gateway_request_duration_seconds_count ${this.count}`,
    );
    for (const [name, gauge] of Object.entries(gauges)) {
      lines.push(
        `# HELP ${name} ${gauge.help}`,
        `# TYPE ${name} ${name.endsWith("_total") ? "counter" : "gauge"}`,
        `${name} ${gauge.value}`,
      );
    }
    return `${lines.join("\n")}\n`;
  }
}
