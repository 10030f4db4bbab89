/**
 * How the market-data pass-through test endpoints answer: the ApiTestResponse wrapper
 * (`{success, message, data, error}`) around the MarketData port's own result schemas, `forward`
 * (one call to the selected provider, its failure answered as `success: false` with `error`, never
 * an HTTP error) and the builders of the pull and subscription routes. The group in
 * api-test-market.ts declares its routes with them; the request bodies are in
 * api-test-market-requests.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError } from "@tp/core/errors";
import type { MarketData } from "@tp/core/provider/market-data";
import { bearer, errorResponses, json, jsonBody, type AppEnv, type GroupServices } from "../http/group";
import { log } from "@tp/core/log";

// ---- result shapes (`data`): the MarketData port's own schemas (core `quote-types`), wrapped ----

const ApiTestErrorDetail = z
  .object({
    code: z
      .string()
      .describe(
        'Stable code: SYMBOL_NOT_FOUND, MARKET_NOT_SUPPORTED, INVALID_SYMBOL, SUB_TYPE_NOT_SUPPORTED, PROVIDER_UNAVAILABLE, PROVIDER_ERROR, PROVIDER_AUTH_FAILED, PROVIDER_RATE_LIMITED (429, `retry_after`), PROVIDER_TOKEN_EXPIRED (503), PROVIDER_CONNECTION_LIMIT (503), PROVIDER_DUPLICATE_REQUEST (409), PROVIDER_TIMEOUT, ... (docs/provider-settings.md "Errors")',
      ),
    message: z.string(),
    status: z.int().describe("The HTTP status the same failure has on the service's other endpoints"),
  })
  .catchall(z.unknown())
  .describe("Extra fields when known: `provider_code` (LongPort's code), `market`, `retry_after`")
  .meta({ id: "ApiTestErrorDetail" });

/** ApiTestResponse with its `data` shape: `success` true with `data`, or false with `error` (still HTTP 200). */
const apiTestResponse = <T extends z.ZodType>(data: T, id: string) =>
  z
    .object({
      success: z.boolean(),
      message: z.string().describe("What happened, naming the provider"),
      data: data.nullable().describe("The provider's result; null on failure"),
      error: ApiTestErrorDetail.nullable().describe("Why the provider call failed; null on success"),
    })
    .meta({ id });

// ---- forwarding ----

type ErrorDetail = z.infer<typeof ApiTestErrorDetail>;

/** The `error` of a failed call: a DomainError's code, message, status and extras; anything else a PROVIDER_ERROR. */
function errorDetail(error: unknown, action: string): ErrorDetail {
  if (error instanceof DomainError) return { ...error.extra, code: error.code, message: error.message, status: error.status };
  // Not a mapped provider failure: keep the trace in the logs, answer the text.
  log.error(`api-test ${action} failed`, { error: String((error as Error)?.stack ?? error) });
  return { code: "PROVIDER_ERROR", message: error instanceof Error ? error.message : String(error), status: 502 };
}

const providerLabel = { simulated: "the simulated market", longport: "LongPort" } as const;

/**
 * Calls the selected provider once and wraps the outcome: a provider failure (unknown symbol,
 * unsupported market, LongPort unreachable) is `success: false` with `error`, never an HTTP error.
 */
export async function forward<T>(
  services: GroupServices<"providers">,
  c: Context<AppEnv>,
  action: string,
  run: (market: MarketData) => Promise<T>,
  summary: (data: T) => string,
) {
  let label = "the provider";
  try {
    const provider = await services.providers.active();
    label = providerLabel[provider.type];
    const data = await run(provider.marketData);
    return c.json({ success: true, message: `${summary(data)} from ${label}`, data, error: null }, 200);
  } catch (error) {
    const detail = errorDetail(error, action);
    return c.json({ success: false, message: `${action} failed at ${label}: ${detail.message}`, data: null, error: detail }, 200);
  }
}

export const count = (items: unknown[], noun: string, plural = `${noun}s`) => `${items.length} ${items.length === 1 ? noun : plural}`;

const tags = ["api-test"];
const descriptions = {
  pull: "Forwards to the selected provider's QuoteContext. A provider failure answers 200 with `success: false` and `error`; an invalid body answers 422.",
  subscription:
    "Subscriptions live in the provider connection of the serving process: the simulated market keeps them per process (per Lambda instance on AWS), LongPort per connection. A provider failure answers 200 with `success: false`; an invalid body answers 422.",
};

/** A pass-through route: its request (a JSON body, or none: one sent is ignored) is all that differs between them. */
const passThroughRoute = <D extends z.ZodType, R extends { request?: ReturnType<typeof jsonBody<z.ZodType>> }>(
  kind: "pull" | "subscription",
  name: string,
  summary: string,
  data: D,
  id: string,
  request: R,
) =>
  createRoute({
    method: "post",
    path: `/api/v1/api-test/${kind}/${name}`,
    tags,
    summary,
    description: descriptions[kind],
    security: bearer,
    ...request,
    responses: { 200: json(apiTestResponse(data, id), "The provider's answer, wrapped"), ...errorResponses({ auth: true }) },
  });

/** A pass-through route with a JSON body. */
const routeWithBody = <B extends z.ZodType, D extends z.ZodType>(kind: "pull" | "subscription", name: string, summary: string, body: B, data: D, id: string) =>
  passThroughRoute(kind, name, summary, data, id, { request: jsonBody(body) });

/** A pass-through route that takes no body (one sent is ignored). */
export const routeWithoutBody = <D extends z.ZodType>(kind: "pull" | "subscription", name: string, summary: string, data: D, id: string) =>
  passThroughRoute(kind, name, summary, data, id, {});
export const pullRoute = <B extends z.ZodType, D extends z.ZodType>(name: string, summary: string, body: B, data: D, id: string) =>
  routeWithBody("pull", name, summary, body, data, id);
export const subscriptionRoute = <B extends z.ZodType, D extends z.ZodType>(name: string, summary: string, body: B, data: D, id: string) =>
  routeWithBody("subscription", name, summary, body, data, id);
