import { randomBytes } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { isCommand } from "@tp/core/api-keys";
import { AuditTrail, type AuditDeps, type AuditEntry } from "@tp/core/audit";
import type { Principal } from "@tp/core/auth";
import { log } from "@tp/core/log";
import { requestHeader } from "./edge";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The pattern of the route that serves the request, as the OpenAPI document spells it
 * (`/api/v1/trading/orders/{order_id}/cancel`): the first matched route that is not middleware;
 * the request's path when none is (an unknown path).
 */
export function routePatternOf(c: Context): string {
  const route = matchedRoutes(c).find((matched) => matched.method !== "ALL");
  return route ? route.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}") : c.req.path;
}

/** The path parameters of `route` in the request's path, by name. */
function parametersOf(route: string, path: string): Record<string, string> {
  const names: string[] = [];
  const pattern = route.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return {};
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
}

async function jsonOf(read: () => Promise<unknown>): Promise<Record<string, unknown> | undefined> {
  try {
    const value = await read();
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Ids a body names at its top level (`session_id`, `channel_id`...): short strings only. */
function idsIn(body: Record<string, unknown> | undefined): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const [name, value] of Object.entries(body ?? {})) if (name.endsWith("_id") && typeof value === "string" && value.length <= 128) ids[name] = value;
  return ids;
}

/** The entry of a finished command. */
async function entryOf(c: Context, principal: Principal, route: string, atMs: number): Promise<AuditEntry> {
  const status = c.res.status;
  const body = /json/i.test(requestHeader(c, "Content-Type") ?? "") ? await jsonOf(() => c.req.json()) : undefined;
  const answer = /json/i.test(c.res.headers.get("Content-Type") ?? "") ? await jsonOf(() => c.res.clone().json()) : undefined;
  const kind = AuditTrail.kindOf(route);
  const targets: Record<string, string> = { ...idsIn(body), ...parametersOf(route, c.req.path) };
  if (status < 300 && answer) {
    if (typeof answer.id === "string" && !Object.values(targets).includes(answer.id)) targets.result_id = answer.id;
    if (typeof answer.session_id === "string") targets.session_id ??= answer.session_id;
  }
  // A command that made a session is the first entry of that session's trail.
  const sessionId = targets.session_id ?? (kind === "session" && status < 300 ? targets.result_id : undefined) ?? null;
  return {
    id: AuditTrail.newId(atMs, randomBytes(4).toString("hex")),
    at: new Date(atMs).toISOString(),
    user_id: principal.user.id,
    key_id: principal.key?.id ?? null,
    kind,
    method: c.req.method,
    route,
    path: c.req.path,
    target_ids: targets,
    session_id: sessionId,
    summary: AuditTrail.summarize(body),
    request_id: (c.get("requestId" as never) as string | undefined) ?? "",
    status,
    outcome: status >= 500 ? "failed" : status >= 400 ? "refused" : "succeeded",
    error_code: status >= 400 && typeof answer?.error_code === "string" ? answer.error_code : null,
  };
}

/**
 * The audit trail's one recorder (docs/security.md "Audit trail"): after every authenticated
 * command (a POST, PUT, PATCH or DELETE that is not a query, `isCommand`) it writes one entry with
 * who sent it, what and how it ended, refusals (4xx) and failures (5xx) included. A request that
 * never authenticated has no one to record (it is in the logs). A failed write is logged, and the
 * command's answer goes out as it was: the command has already happened.
 */
export function auditTrail(audit: AuditDeps): MiddlewareHandler {
  return async (c, next) => {
    if (!MUTATING.has(c.req.method)) return next();
    const atMs = audit.now();
    await next();
    const principal = c.get("principal" as never) as Principal | undefined;
    if (!principal) return;
    const route = routePatternOf(c);
    if (!isCommand(c.req.method, route)) return;
    try {
      await AuditTrail.record(audit, await entryOf(c, principal, route, atMs));
    } catch (error) {
      log.error("Audit entry not written", { path: c.req.path, request_id: c.get("requestId" as never), error: String(error) });
    }
  };
}
