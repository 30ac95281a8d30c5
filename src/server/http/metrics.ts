/**
 * Prometheus metrics for `GET /metrics` on the admin listener: requests by route and status, one
 * latency histogram, plus gauges the admin side adds (token cache, sessions). Routes are labelled by
 * their pattern (ids replaced), so label cardinality stays bounded.
 */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function routeLabel(path: string): string {
  const known =
    /^\/(v1\/resources|admin\/v1\/(?:sessions|pending|resources|apps|users))\/([^/]+)(\/.*)?$/.exec(path);
  if (!known) return path.length > 64 ? "other" : path;
  const [, base, id, rest = ""] = known;
  if (base === "v1/resources" && (id === "browse" || id === "static")) return `/${base}/${id}`;
  const tail =
    base === "admin/v1/pending"
      ? "/:userId"
      : rest.replace(/[^/]+/g, (s) => (/^[A-Za-z]+$/.test(s) ? s : ":id"));
  return `/${base}/:id${tail}`;
}

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly buckets = new Array<number>(BUCKETS.length).fill(0);
  private sum = 0;
  private count = 0;

  observe(method: string, path: string, status: number, seconds: number): void {
    const key = `method="${method}",route="${routeLabel(path)}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** Wraps a fetch handler so every request is counted and timed. */
  instrument(fetch: (request: Request) => Response | Promise<Response>) {
    return async (request: Request): Promise<Response> => {
      const started = performance.now();
      const response = await fetch(request);
      const path = request.url.slice(request.url.indexOf("/", 8)).split("?")[0]!;
      this.observe(request.method, path, response.status, (performance.now() - started) / 1000);
      return response;
    };
  }

  render(gauges: Record<string, { help: string; value: number }>): string {
    const lines = [
      "# HELP gateway_requests_total Requests by route and status.",
      "# TYPE gateway_requests_total counter",
    ];
    for (const [labels, n] of this.requests) lines.push(`gateway_requests_total{${labels}} ${n}`);
    lines.push(
      "# HELP gateway_request_duration_seconds Request latency.",
      "# TYPE gateway_request_duration_seconds histogram",
    );
    BUCKETS.forEach((le, i) =>
      lines.push(`gateway_request_duration_seconds_bucket{le="${le}"} ${this.buckets[i]}`),
    );
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
