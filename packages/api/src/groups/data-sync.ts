import { createRoute, z } from "@hono/zod-openapi";
import {
  DataSync,
  DataSyncStatusResponse,
  LookbackDaysQuery,
  LookbackDaysResponse,
  MAX_LOOKBACK_DAYS,
  StartSyncRequest,
  StartSyncResponse,
  StopSyncRequest,
  StopSyncResponse,
} from "@tp/core/data-sync/index";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const SymbolParam = z.object({ symbol: z.string().min(1).max(32) });
const tags = ["data-sync"];
const symbolErrors = (notFound: string) => ({
  400: errorResponse("INVALID_SYMBOL or MARKET_NOT_SUPPORTED"),
  ...errorResponses({ auth: true, notFound: [notFound] }),
});

/**
 * The data sync service (docs/data-sync.md): its state machine, reference-counted symbol
 * subscriptions and lookback window. The work itself runs in the `data-sync` queue worker.
 */
export function dataSyncGroup(services: GroupServices<"dataSync">) {
  const app = createGroup();
  app.use("/api/v1/data-sync/*", requireAuth(services));
  const deps = services.dataSync;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/data-sync/status",
      tags,
      summary: "The service's state, lookback window and subscriptions (with each symbol's backfill)",
      security: bearer,
      responses: { 200: json(DataSyncStatusResponse, "Status"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await DataSync.status(deps), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/data-sync/start",
      tags,
      summary: "Start the service: settle every subscribed symbol's calendar and backfill its history",
      description: "stopped → initializing → ready (or back to stopped when initialization fails). A running service is left as it is and its state returned.",
      security: bearer,
      responses: { 200: json(StartSyncResponse, "Started, or already running"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await DataSync.start(deps, c.get("principal").user), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/data-sync/stop",
      tags,
      summary: "Stop the service (subscriptions are kept for the next start)",
      security: bearer,
      responses: { 200: json(StopSyncResponse, "Stopped, or already stopped"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await DataSync.stop(deps), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/data-sync/config/lookback-days",
      tags,
      summary: "Days of history settled and backfilled per symbol",
      description: `1 to ${MAX_LOOKBACK_DAYS}; outside that: 400 \`INVALID_PARAMETER\`. Used by the next settle and gap fill.`,
      security: bearer,
      request: { query: LookbackDaysQuery },
      responses: { 200: json(LookbackDaysResponse, "Saved"), 400: errorResponse("INVALID_PARAMETER"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await DataSync.setLookback(deps, c.req.valid("query").days), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/data-sync/{symbol}/start",
      tags,
      summary: "Subscribe a session to a symbol (reference-counted per session); starts the service if it is stopped",
      description:
        "A session holding the symbol already is counted once. `symbols` subscribes more symbols for the same session. 404 `SYMBOL_NOT_FOUND` for a symbol the provider does not list.",
      security: bearer,
      request: { params: SymbolParam, ...jsonBody(StartSyncRequest) },
      responses: { 200: json(StartSyncResponse, "Subscribed"), ...symbolErrors("SYMBOL_NOT_FOUND") },
    }),
    async (c) => c.json(await DataSync.subscribe(deps, c.get("principal").user, c.req.valid("param").symbol, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/data-sync/{symbol}/stop",
      tags,
      summary: "Release a session's subscription; it ends when no session holds the symbol",
      description: "`remaining_count` (and the message) say how many sessions still hold it. 404 `SUBSCRIPTION_NOT_FOUND` when the session holds none.",
      security: bearer,
      request: { params: SymbolParam, ...jsonBody(StopSyncRequest) },
      responses: { 200: json(StopSyncResponse, "Released"), ...symbolErrors("SUBSCRIPTION_NOT_FOUND") },
    }),
    async (c) => c.json(await DataSync.unsubscribe(deps, c.req.valid("param").symbol, c.req.valid("json")), 200),
  );

  return app;
}
