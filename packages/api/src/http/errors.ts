import type { Context, Env } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { DomainError, ValidationError, type ValidationIssue } from "@tp/core/errors";
import { requestHeader } from "./edge";
import { log } from "@tp/core/log";

/** The error body of every non-2xx answer. 422 bodies carry the list of problems in `detail`. */
export const ErrorBody = z
  .object({
    detail: z.union([z.string(), z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }))]),
    error_code: z.string(),
    timestamp: z.string(),
    path: z.string(),
    trace_id: z.string().optional().describe("On 500: the id to quote when reporting it"),
    retry_after: z.number().int().optional().describe("On 429 and 503: seconds to wait before trying again (also the Retry-After header)"),
    current_status: z.string().optional().describe("On INVALID_STATE_TRANSITION and other state conflicts: the state the resource is in"),
    action: z.string().optional().describe("On INVALID_STATE_TRANSITION: the action refused"),
    channel_id: z.string().optional().describe("On a channel's INVALID_STATE_TRANSITION: the channel"),
    max_bytes: z.number().int().optional().describe("On 413: the largest body taken"),
    running_task_id: z.string().optional().describe("On IMPORT_ALREADY_RUNNING: the import that runs"),
    provider_code: z
      .number()
      .int()
      .optional()
      .describe("On PROVIDER_ERROR, PROVIDER_REFUSED, PROVIDER_RATE_LIMITED and the other PROVIDER_ codes LongPort answered: its own error code"),
  })
  .catchall(z.unknown())
  .describe(
    "The body of every error answer. `error_code` is stable; each operation lists the codes it can answer. Some errors add fields of their own (listed here when shared).",
  )
  .meta({ id: "ErrorBody" });

/** Turns zod issues into the 422 list: where (`loc`, starting with body/query/path/header), what and which kind. */
export function issuesFrom(error: z.ZodError, location: string): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [location, ...issue.path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment))],
    msg: issue.message,
    type: issue.code,
  }));
}

/** Where in a request a problem can be: the first element of every `loc`. */
const LOCATIONS: readonly unknown[] = ["body", "query", "path", "header"];

/** Issue types that say a value is malformed: what a later check of the same value reports is a consequence, not another problem. */
const MALFORMED = new Set(["invalid_type", "invalid_format", "invalid_value", "invalid_union", "json_invalid"]);

/**
 * The 422 list as docs/api-conventions.md lays it out, whoever found the problems (a request
 * schema or the domain): every `loc` starts with where in the request the value was (a domain
 * check that names a field without it, such as a session configuration's `["config", …]`,
 * checked a field of the body), and each problem is listed once: the same message at the same
 * field once, and nothing more at a field already reported malformed (a date written
 * `2024/01/01` is an `invalid_format`, not also the `custom` check after it). Different
 * problems of one well-formed value (a date that does not exist, and that a stock has no expiry)
 * are all listed.
 */
export function layoutIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const malformed = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const loc = LOCATIONS.includes(issue.loc[0]) ? issue.loc : ["body", ...issue.loc];
    const field = JSON.stringify(loc);
    const key = `${field} ${issue.msg}`;
    if (seen.has(key) || malformed.has(field)) continue;
    seen.add(key);
    if (MALFORMED.has(issue.type)) malformed.add(field);
    out.push({ ...issue, loc });
  }
  return out;
}

function body(c: Context, _status: number, code: string, detail: unknown, extra: Record<string, unknown> = {}) {
  return {
    detail,
    error_code: code,
    timestamp: new Date().toISOString(),
    path: c.req.path,
    ...extra,
  };
}

/**
 * The one place errors become HTTP answers: domain errors keep their status and code,
 * malformed JSON is a 422 like any other invalid input, anything unexpected is a 500 with a trace id.
 */
export function onError(error: Error, c: Context): Response {
  if (error instanceof ValidationError) {
    return c.json(body(c, 422, error.code, layoutIssues(error.issues)), 422);
  }
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (error.status === 401) headers["WWW-Authenticate"] = 'Bearer realm="api"';
    if (typeof error.extra.retry_after === "number") headers["Retry-After"] = String(error.extra.retry_after);
    return c.json(body(c, error.status, error.code, error.message, error.extra), error.status as 400, headers);
  }
  if (error instanceof HTTPException) {
    if (error.status === 400 && /malformed json/i.test(error.message)) {
      const issues: ValidationIssue[] = [{ loc: ["body"], msg: "Request body is not valid JSON", type: "json_invalid" }];
      return c.json(body(c, 422, "VALIDATION_ERROR", issues), 422);
    }
    if (error.status === 415) {
      // zod-openapi's own words ("Unsupported Media Type") leave a caller guessing what to send.
      const sent = requestHeader(c, "Content-Type")?.split(";")[0]?.trim().slice(0, 100);
      const detail = `The request body must be JSON: send the header Content-Type: application/json (${sent ? `got ${sent}` : "none was sent"})`;
      return c.json(body(c, 415, "UNSUPPORTED_MEDIA_TYPE", detail), 415);
    }
    return c.json(body(c, error.status, "HTTP_ERROR", error.message || "Request failed"), error.status);
  }
  const traceId = (c.get("requestId" as never) as string | undefined) ?? crypto.randomUUID();
  log.error("Unhandled error", { trace_id: traceId, path: c.req.path, error: String(error.stack ?? error) });
  return c.json(body(c, 500, "INTERNAL_ERROR", "Internal server error", { trace_id: traceId }), 500);
}

export function notFoundHandler(c: Context): Response {
  return c.json(body(c, 404, "NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`), 404);
}

/** The zod-openapi hook: a failed request schema answers 422 with every problem listed. */
export function validationHook(result: { success: boolean; error?: unknown; target: string }, _c: Context) {
  if (!result.success) {
    const location = result.target === "json" ? "body" : result.target === "param" ? "path" : result.target;
    throw new ValidationError(issuesFrom(result.error as z.ZodError, location));
  }
}

/**
 * A route's hook whose JSON body may hold more problems than its schema finds: when the schema
 * refuses the body, `further` is given the body as sent and the schema's problems, and answers
 * the 422 of them all (its domain checks run on the fields that are well formed).
 */
export function checkingFurther<E extends Env>(further: (body: unknown, issues: ValidationIssue[], c: Context<E>) => Promise<ValidationError>) {
  return (async (result: { success: boolean; error?: unknown; data?: unknown; target: string }, c: Context<E>) => {
    if (result.success) return undefined;
    if (result.target !== "json") return validationHook(result, c);
    throw await further(result.data, issuesFrom(result.error as z.ZodError, "body"), c);
  }) as never;
}
