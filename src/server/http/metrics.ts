/**
 * Prometheus metrics for `GET /metrics` on the admin listener: requests by route and status, one
 * latency histogram, plus gauges the admin side adds (token cache, sessions). Routes are labelled by
 * their template as the router knows it (ids never), so label cardinality stays bounded.
 */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class Metrics {
  /** route → method → status → count: the router's labels are constants, so no key is built per request. */
  private readonly requests = new Map<string, Map<string, Map<number, number>>>();
  private readonly buckets = new Array<number>(BUCKETS.length).fill(0);
  private sum = 0;
  private count = 0;

  /** One request: `route` is its route's template (the router's), or "other". */
  observeRoute(method: string, route: string, status: number, seconds: number): void {
    const statuses = inner(inner(this.requests, route), method);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
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
    for (const [route, methods] of this.requests)
      for (const [method, statuses] of methods)
        for (const [status, n] of statuses)
          lines.push(`gateway_requests_total{method="${method}",route="${route}",status="${status}"} ${n}`);
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

/** The map under `key`, made on first use. */
function inner<K, V extends Map<unknown, unknown>>(outer: Map<K, V>, key: K): V {
  let found = outer.get(key);
  if (found === undefined) {
    found = new Map() as V;
    outer.set(key, found);
  }
  return found;
}
