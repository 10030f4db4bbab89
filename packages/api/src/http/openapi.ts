/**
 * The OpenAPI document as front ends read it. The groups declare their routes with zod
 * (`createRoute`) and their error answers with `errorResponses` / `errorResponse` (http/group.ts);
 * `finishDocument` then applies, to every operation of every group alike, what the interface and
 * the tools front ends use (openapi-typescript, openapi-fetch, swagger-parser, redocly) expect:
 *
 * - a stable camelCase `operationId` derived from the method and the path (`operationIdOf`);
 * - `security: []` on the operations a route declares without `security` (they are public);
 * - every error answer (4xx, 5xx) references the one `ErrorBody` schema with `error_code` narrowed
 *   to the codes the answer can carry (`errorCodesOf`), 413 on every operation with a body and
 *   422 on every operation (the input bounds run before every route);
 * - path parameters required and no parameter nullable (a query string has no null);
 * - the declared tags and the server.
 *
 * Decisions: docs/api-conventions.md, "The OpenAPI document".
 */

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, Response>;
}
interface Parameter extends Json {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
interface Response extends Json {
  description: string;
  content?: Record<string, { schema?: Json }>;
}

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head"] as const;

export const ERROR_BODY_REF = "#/components/schemas/ErrorBody";

/** What each tag (one per endpoint group) holds, for the document's `tags`. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  system: "Service root, health and cache status",
  auth: "Captcha, login, logout and the current user",
  users: "User administration",
  "stock-data": "Stored candles: create, list, read, delete",
  "stock-import": "Import tasks that fill the candle store from the provider",
  "stock-calendar": "Trading calendars and missing trading days per symbol",
  brokers: "Broker connections of a user",
  "data-sources": "Market-data sources (administrators)",
  assets: "Cash accounts and positions, real and simulated",
  strategies: "The strategy catalog",
  indicators: "The indicator catalog",
  risk: "Risk presets and validation, and a session's risk views",
  "channel-presets": "Presets of multi-channel configurations",
  flows: "Stored strategy flows",
  settings: "The market-data provider settings",
  "api-test": "Market-data pass-through to the provider",
  "api-test-trade": "Trading pass-through to the broker",
  trading: "Trading sessions, their orders and views",
  backtest: "Backtests: start, control, progress, result",
  "data-sync": "The data sync service and its symbols",
  channels: "Multi-channel sessions: channels, risk limits, alerts, configuration versions, catch-up updates",
  mtf: "Multi-timeframe sessions",
  replay: "Replays of a session over stored candles",
  "api-keys": "API keys for bots: scopes, expiry, sessions; shown once, stored hashed",
  audit: "The audit trail: every command, who sent it and how it ended",
};

/**
 * The code a 404 answers for a missing resource, by the path parameter that names it. A 404
 * declared without codes gets the codes of its path's parameters.
 */
const NOT_FOUND_BY_PARAMETER: Record<string, string> = {
  session_id: "SESSION_NOT_FOUND",
  channel_id: "CHANNEL_NOT_FOUND",
  alert_id: "ALERT_NOT_FOUND",
  backtest_id: "BACKTEST_NOT_FOUND",
  sweep_id: "SWEEP_NOT_FOUND",
  broker_id: "BROKER_NOT_FOUND",
  data_source_id: "DATA_SOURCE_NOT_FOUND",
  flow_id: "FLOW_NOT_FOUND",
  user_id: "USER_NOT_FOUND",
  position_id: "POSITION_NOT_FOUND",
  order_id: "ORDER_NOT_FOUND",
  task_id: "IMPORT_TASK_NOT_FOUND",
  strategy_name: "STRATEGY_NOT_FOUND",
  strategy_id: "STRATEGY_NOT_FOUND",
  indicator_id: "INDICATOR_NOT_FOUND",
  preset_name: "RISK_PRESET_NOT_FOUND",
  preset_id: "PRESET_NOT_FOUND",
  symbol: "SYMBOL_NOT_FOUND",
};

/** A 404 declared without codes on a path without a resource parameter: the group's resource. */
const NOT_FOUND_BY_TAG: Record<string, string> = { assets: "ASSET_NOT_FOUND" };

/** The code of an error answer whose declaration names none, by status. */
const DEFAULT_CODES: Record<string, string[]> = {
  "400": ["INVALID_PARAMETER"],
  "401": ["UNAUTHORIZED"],
  "403": ["ACCESS_DENIED"],
  "413": ["PAYLOAD_TOO_LARGE"],
  "422": ["VALIDATION_ERROR"],
  "429": ["TOO_MANY_REQUESTS"],
  "500": ["INTERNAL_ERROR"],
  "502": ["PROVIDER_ERROR"],
  "503": ["SERVICE_UNAVAILABLE"],
  "504": ["PROVIDER_TIMEOUT"],
};

/** Codes every answer of a status carries besides its own (the conventions that run before every route). */
const ALWAYS: Record<string, string[]> = {
  "401": ["UNAUTHORIZED"],
  "413": ["PAYLOAD_TOO_LARGE"],
  "422": ["VALIDATION_ERROR"],
};

/**
 * Paths a group serves under both spellings by dispatching the slashed one to the route
 * (groups/assets.ts, `alsoWithTrailingSlash`): the slashed spelling is documented as a copy. The
 * strategies and indicators lists declare both spellings as routes.
 */
const DISPATCHED_WITH_SLASH = ["/api/v1/assets", "/api/v1/assets/simulated"];

const CODE = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

const camel = (words: string[]) =>
  words
    .flatMap((word) => word.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join("");

/**
 * The operation id of a method and path: the method, the path's fixed segments after `/api/v1`,
 * then `By` and its parameters (`GET /api/v1/backtest/{backtest_id}/progress` →
 * `getBacktestProgressByBacktestId`, `POST /api/v1/data-sync/start` → `postDataSyncStart`); the
 * slashed spelling of a path gets `WithSlash`, the root `getRoot`. Derived from the path alone, so
 * it stays the same as long as the path does, whatever else is added.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path
    .replace(/^\/api\/v1(?=\/|$)/, "")
    .split("/")
    .filter(Boolean);
  const fixed = segments.filter((segment) => !segment.startsWith("{"));
  const parameters = segments.filter((segment) => segment.startsWith("{")).map((segment) => segment.replace(/[{}+]/g, ""));
  let id = camel([method, ...(fixed.length ? fixed : ["root"])]);
  if (parameters.length) id += `By${parameters.map((name) => camel(["x", name]).slice(1)).join("And")}`;
  if (path.length > 1 && path.endsWith("/")) id += "WithSlash";
  return id;
}

/** The `error_code` values an error answer can carry: the codes its description names, else the status's own. */
export function errorCodesOf(status: string, description: string, path: string, tags: readonly string[]): string[] {
  const named = description.match(CODE) ?? [];
  let codes = [...named];
  if (codes.length === 0 && status === "404") {
    codes = [...path.matchAll(/\{(\w+)\}/g)].map((match) => NOT_FOUND_BY_PARAMETER[match[1]!]).filter((code): code is string => !!code);
    if (codes.length === 0) codes = tags.map((tag) => NOT_FOUND_BY_TAG[tag]).filter((code): code is string => !!code);
  }
  if (codes.length === 0) codes = DEFAULT_CODES[status] ?? [];
  return [...new Set([...(ALWAYS[status] ?? []), ...codes])].sort();
}

/** The schema of an error answer: the one ErrorBody, its `error_code` narrowed to `codes`. */
export function errorSchemaOf(codes: readonly string[]): Json {
  return {
    allOf: [{ $ref: ERROR_BODY_REF }, { type: "object", properties: { error_code: { type: "string", enum: [...codes] } }, required: ["error_code"] }],
  };
}

const errorAnswer = (description: string, codes: readonly string[]): Response => ({
  description,
  content: { "application/json": { schema: errorSchemaOf(codes) } },
});

function finishParameters(operation: Operation) {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === "path") parameter.required = true;
    const type = parameter.schema?.type;
    // z.coerce.number() reads a string; its input side is documented as nullable, which a URL cannot be.
    if (Array.isArray(type)) {
      const rest = type.filter((name) => name !== "null");
      parameter.schema!.type = rest.length === 1 ? rest[0] : rest;
    }
  }
}

/** What every operation that takes a credential may answer besides its own, since an API key may send it (docs/security.md "API keys"). */
const KEY_RATE_LIMITED = "API_KEY_RATE_LIMITED: the API key's requests in this window are spent (across every instance); try again after `retry_after` seconds";
const KEY_SCOPE = "ACCESS_DENIED: an API key without the scope the route needs (`required_scope` names it)";

function finishResponses(operation: Operation, path: string, problems: string[]) {
  const responses = operation.responses;
  if (operation.security?.length) {
    const limited = responses["429"];
    responses["429"] = limited ? { ...limited, description: `${limited.description}; or ${KEY_RATE_LIMITED}` } : { description: KEY_RATE_LIMITED };
    responses["403"] ??= { description: KEY_SCOPE };
  }
  responses["422"] ??= { description: "Invalid input: `detail` lists every problem (loc, msg, type)" };
  if (operation.requestBody) responses["413"] ??= { description: "The body is larger than the service takes (`max_bytes`)" };
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400) continue;
    const codes = errorCodesOf(status, response.description, path, operation.tags ?? []);
    if (codes.length === 0) problems.push(`${path}: the ${status} answer names no error_code and its status has no usual one`);
    responses[status] = errorAnswer(response.description, codes);
  }
}

/**
 * The finished document (see the top of this file). Throws, listing every problem, when two
 * operations would share an id, an operation has no tag or an error answer has no code, so
 * `npm run openapi` and its test catch a route declared without them.
 */
export function finishDocument<T>(generated: T): T {
  const document = structuredClone(generated) as unknown as Json & { paths: Record<string, Record<string, Operation>>; components?: Json };
  const ids = new Map<string, string>();
  const usedTags = new Set<string>();
  const problems: string[] = [];
  for (const path of DISPATCHED_WITH_SLASH) {
    if (document.paths[path] && !document.paths[`${path}/`]) document.paths[`${path}/`] = structuredClone(document.paths[path]);
  }
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!operation.tags?.length) problems.push(`${where} has no tag`);
      for (const tag of operation.tags ?? []) usedTags.add(tag);
      operation.operationId ??= operationIdOf(method, path);
      const clash = ids.get(operation.operationId);
      if (clash) problems.push(`${where} and ${clash} share the operationId ${operation.operationId}`);
      ids.set(operation.operationId, where);
      operation.security ??= [];
      finishParameters(operation);
      finishResponses(operation, path, problems);
    }
  }
  if (problems.length) throw new Error(`The OpenAPI document has problems:\n${problems.join("\n")}`);
  const info = document.info as Json;
  return {
    openapi: document.openapi,
    info,
    servers: [{ url: "/", description: "The service that serves this document (npm start prints its address; on AWS the API's URL)" }],
    tags: [...usedTags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `The ${name} endpoints` })),
    ...Object.fromEntries(Object.entries(document).filter(([key]) => !["openapi", "info", "servers", "tags"].includes(key))),
  } as T;
}
