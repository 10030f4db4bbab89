import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { checkScope } from "@tp/core/api-keys";
import type { Principal } from "@tp/core/auth";
import { forbidden, unauthorized } from "@tp/core/errors";
import type { Services } from "@tp/adapters/services";
import { auditTrail, routePatternOf } from "./audit";
import { inputBounds } from "./bounds";
import { cors } from "./cors";
import { requestHeader, requestId } from "./edge";
import { conditionalRequests } from "./etag";
import { ErrorBody, notFoundHandler, onError, validationHook } from "./errors";

export interface AppEnv {
  Variables: {
    requestId: string;
    /** Who the request acts as: a sign-in token's user or an API key's (`key` set). */
    principal: Principal;
    /** The version a PUT's `If-Match` named, checked current when the request came in (etag.ts). */
    ifMatchVersion?: number;
  };
}

/**
 * The services a group is built with: the configuration, the principals and the audit trail (CORS,
 * bearer tokens and API keys, the record of commands, which every deployed app needs) and the
 * group's own, `K`. A group names what it uses, so its Lambda function composes (and bundles) only
 * those (packages/functions/src/http).
 */
export type GroupServices<K extends keyof Services = never> = Pick<Services, "config" | "principals" | "audit" | K>;

/** A new endpoint group: every group answers invalid input with the same 422. */
export function createGroup() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });
}
export type Group = ReturnType<typeof createGroup>;

/**
 * The conventions every deployed app carries, whether it holds one group (a Lambda) or all
 * of them (the embedded runtime): request ids, CORS, the error mapper, the 404 body.
 */
export function withConventions(app: Group, services: GroupServices): Group {
  app.use("*", requestId);
  app.use(
    "*",
    cors({
      origins: services.config.corsOrigins,
      allowHeaders: ["Authorization", "X-API-Key", "Content-Type", "X-Request-Id", "If-Match"],
      exposeHeaders: ["X-Request-Id", "Retry-After", "ETag"],
      maxAgeSeconds: 600,
    }),
  );
  // Every command, refused ones included: after CORS (a preflight is none), around everything after.
  app.use("*", auditTrail(services.audit));
  // After CORS, so a refused request's answer is readable by the browser that sent it.
  app.use("*", inputBounds);
  app.use("*", conditionalRequests(app));
  app.onError(onError);
  app.notFound(notFoundHandler);
  return app;
}

/**
 * Requires a credential: a sign-in token or an API key as `Authorization: Bearer <...>`, or an API
 * key as `X-API-Key: <key>`; puts the principal on the context. A key's request must be within its
 * scopes for the route (403 naming the scope, `checkScope`), its sessions (checked where sessions
 * are owned) and its rate (429, in `principals.resolve`). A `?token=` query parameter is not read
 * here: tokens in URLs end up in proxy logs and Referer headers, so only the WebSocket upgrade
 * (which cannot send headers from a browser) takes one.
 */
export function requireAuth(services: GroupServices): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Resolved once per request: on the embedded app, groups whose paths overlap (sweeps inside
    // backtest's, mtf inside trading's) each mount this, and a key's rate is spent once.
    if (c.get("principal")) return next();
    const header = requestHeader(c, "Authorization") ?? "";
    const token = requestHeader(c, "X-API-Key")?.trim() || /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!token)
      throw unauthorized(
        "Not authenticated: send Authorization: Bearer <access_token or API key>, or X-API-Key: <API key> (a ?token= query parameter is accepted only on WebSocket connections)",
      );
    const principal = await services.principals.resolve(token);
    // Set before the scope check, so a refused command is recorded with who sent it.
    c.set("principal", { ...principal, token });
    if (principal.key) checkScope(principal.key, c.req.method, routePatternOf(c));
    await next();
  };
}

/** Administrator-only routes. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("principal").user.user_type !== "admin") throw forbidden("Administrator access is required");
  await next();
};

/**
 * One error answer of a route. Its description names the `error_code`s it can carry (the
 * SCREAMING_SNAKE words in it); the finished document lists them as the enum of `error_code` in
 * the one ErrorBody (http/openapi.ts). An answer naming none carries its status's usual code.
 */
export const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });

/**
 * The error answers a route may give besides its own: 422 always; with `auth`, 401 and 403
 * ACCESS_DENIED; with `notFound`, 404 (the codes given, or those of the path's parameters:
 * `{session_id}` → SESSION_NOT_FOUND); with `unavailable`, 503 with `retry_after` (the codes given).
 */
export function errorResponses(
  options: { auth?: boolean; notFound?: boolean | readonly string[]; unavailable?: readonly string[] } = {},
): RouteConfig["responses"] {
  const named = (codes: boolean | readonly string[] | undefined, text: string) => (Array.isArray(codes) ? `${codes.join(" or ")}: ${text}` : text);
  return {
    422: errorResponse("VALIDATION_ERROR: `detail` lists every problem (loc, msg, type)"),
    ...(options.auth ? { 401: errorResponse("UNAUTHORIZED: missing, invalid, expired or revoked token"), 403: errorResponse("ACCESS_DENIED") } : {}),
    ...(options.notFound ? { 404: errorResponse(named(options.notFound, "the resource does not exist")) } : {}),
    ...(options.unavailable ? { 503: errorResponse(named(options.unavailable, "try again after `retry_after` seconds")) } : {}),
  };
}

/**
 * The answers of a route that calls the market-data or trading provider while it answers
 * (docs/provider-settings.md "Errors", docs/live-trading.md "Errors"): LongPort's rate limit, an
 * expired token, its refusals and failures, an unreachable host or the relay's silence, a second
 * quote connection. `unavailable` adds the route's own 503 codes.
 */
export function providerErrorResponses(unavailable: readonly string[] = []): RouteConfig["responses"] {
  return {
    429: errorResponse("PROVIDER_RATE_LIMITED: LongPort's rate limit (429001, 429002); try again after `retry_after` seconds"),
    502: errorResponse("PROVIDER_ERROR or PROVIDER_AUTH_FAILED: LongPort answered with an error (`provider_code`) or refused the credentials"),
    503: errorResponse(
      [...unavailable, "PROVIDER_UNAVAILABLE", "PROVIDER_TOKEN_EXPIRED", "PROVIDER_CONNECTION_LIMIT"].join(" or ") +
        ": LongPort unreachable, its access token expired (401003: refresh it), or its one quote connection held elsewhere; try again after `retry_after` seconds",
    ),
    504: errorResponse("PROVIDER_TIMEOUT: LongPort, or the session worker holding its quote connection, did not answer in time"),
  };
}

export const bearer = [{ bearerAuth: [] }];

/** A JSON response entry for a route's `responses`. */
export function json<T>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON request body for a route's `request`. */
export function jsonBody<T>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}

/** One endpoint group as its own app with the shared conventions: what a group's Lambda serves (it imports only that group). */
export function createSingleGroupApp<S extends GroupServices>(build: (services: S) => Group, services: S): Group {
  const app = withConventions(createGroup(), services);
  app.route("/", build(services));
  return app;
}
