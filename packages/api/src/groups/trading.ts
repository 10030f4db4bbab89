import { createRoute, z } from "@hono/zod-openapi";
import { FUNDING_CONFLICTS } from "@tp/core/trading/session/accounts";
import { KILL_SWITCH_CONFLICT } from "@tp/core/kill-switch";
import type { Context } from "hono";
import * as Risk from "@tp/core/risk/risk";
import { SessionLifecycle, SessionOrders, SessionReads, SessionRisk, Sessions, TradingOrderResponse } from "@tp/core/trading/index";
import type { TradingServices } from "@tp/adapters/trading";
import {
  type AppEnv,
  bearer,
  createGroup,
  errorResponse,
  errorResponses,
  json,
  jsonBody,
  providerErrorResponses,
  requireAuth,
  type GroupServices,
} from "../http/group";

const SessionIdParam = z.object({ session_id: z.string().min(1).max(128) });
const OrderIdParam = z.object({ order_id: z.string().min(1).max(200) });

const tags = ["trading"];
const riskTags = ["risk"];
const owned = { auth: true, notFound: true } as const;
/** The 404s of a view that reads one of the session's runs. */
const byRun = ["SESSION_NOT_FOUND", "RUN_NOT_FOUND"] as const;
const conflictResponse = (what: string) => ({ 409: errorResponse(what) });
const transitionConflict = conflictResponse("INVALID_STATE_TRANSITION: the operation is not allowed in the session's state (`current_status` names it)");
const resumeConflict = conflictResponse(`INVALID_STATE_TRANSITION: not allowed in the session's state (\`current_status\` names it); ${KILL_SWITCH_CONFLICT}`);
const startConflict = conflictResponse(`INVALID_STATE_TRANSITION: not allowed in the session's state (\`current_status\` names it); ${FUNDING_CONFLICTS}`);

type Ctx = Context<AppEnv>;
const actor = (c: Ctx) => c.get("principal").user;

/**
 * Trading sessions (docs/trading-sessions.md): the resource and its state machine, the views
 * over each session's event log, order checks, and the per-session risk operations, which the
 * interface serves under both /trading/sessions/{id}/risk/... and /risk/sessions/{id}/....
 */
export function tradingGroup(services: GroupServices & { trading: Pick<TradingServices, "sessions"> }) {
  const app = createGroup();
  for (const path of ["/api/v1/trading/*", "/api/v1/risk/sessions/*"]) app.use(path, requireAuth(services));
  const deps = services.trading.sessions;

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/sessions",
      tags,
      summary: "Create a trading session (status created)",
      description:
        "`config` takes channels (a channel preset's content as it is), or `strategy_name` with `parameters` for a one-channel session; unknown keys are ignored and missing strategy parameters take their defaults. An empty `config` makes a session without channels.",
      security: bearer,
      request: jsonBody(Sessions.TradingSessionCreate),
      responses: { 201: json(Sessions.TradingSessionResponse, "The new session"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(Sessions.toResponse(await Sessions.create(deps, actor(c), c.req.valid("json"))), 201),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/sessions",
      tags,
      summary: "The caller's sessions, newest first",
      security: bearer,
      request: { query: Sessions.SessionListQuery },
      responses: { 200: json(z.array(Sessions.TradingSessionResponse), "Sessions"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json((await Sessions.list(deps, actor(c), c.req.valid("query"))).map(Sessions.toResponse), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/sessions/{session_id}",
      tags,
      summary: "Get a session",
      security: bearer,
      request: { params: SessionIdParam },
      responses: { 200: json(Sessions.TradingSessionResponse, "The session"), ...errorResponses(owned) },
    }),
    async (c) => c.json(Sessions.toResponse(await Sessions.owned(deps, actor(c), c.req.valid("param").session_id)), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/trading/sessions/{session_id}",
      tags,
      summary: "Rename, change status (through the state machine) or replace the risk configuration",
      security: bearer,
      request: { params: SessionIdParam, ...jsonBody(Sessions.TradingSessionUpdate) },
      responses: { 200: json(Sessions.TradingSessionResponse, "The updated session"), ...startConflict, ...errorResponses(owned) },
    }),
    async (c) => c.json(Sessions.toResponse(await SessionLifecycle.update(deps, actor(c), c.req.valid("param").session_id, c.req.valid("json"))), 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/v1/trading/sessions/{session_id}",
      tags,
      summary: "Delete a session that is not running or paused, with its runs' events and orders",
      security: bearer,
      request: { params: SessionIdParam },
      responses: { 200: json(Sessions.SessionDeleteResult, "Deleted"), ...transitionConflict, ...errorResponses(owned) },
    }),
    async (c) => {
      const session = await SessionLifecycle.remove(deps, actor(c), c.req.valid("param").session_id);
      return c.json({ success: true, message: `Trading session ${session.session_name} deleted`, id: session.id }, 200);
    },
  );

  for (const action of ["start", "stop", "pause", "resume"] as const) {
    const rule = Sessions.TRANSITIONS[action];
    app.openapi(
      createRoute({
        method: "post",
        path: `/api/v1/trading/sessions/{session_id}/${action}`,
        tags,
        summary: `${action[0].toUpperCase()}${action.slice(1)} a session (${rule.from.join(" or ")} → ${rule.to})`,
        security: bearer,
        request: { params: SessionIdParam },
        responses: {
          200: json(Sessions.TradingSessionResponse, "The session in its new state"),
          ...(action === "start" ? startConflict : action === "resume" ? resumeConflict : transitionConflict),
          ...errorResponses(owned),
          // A live session's start asks the provider for its account's buying power.
          ...(action === "start" ? providerErrorResponses() : {}),
        },
      }),
      async (c) => c.json(Sessions.toResponse(await SessionLifecycle.transition(deps, actor(c), c.req.valid("param").session_id, action)), 200),
    );
  }

  /** A GET view of one session, under each of `prefixes`. */
  const view = <Q extends z.ZodType | undefined>(
    paths: string[],
    options: { summary: string; schema: z.ZodType; query?: Q; tags?: string[]; notFound?: readonly string[] },
    read: (c: Ctx, sessionId: string) => Promise<unknown>,
  ) => {
    for (const path of paths) {
      app.openapi(
        createRoute({
          method: "get",
          path,
          tags: options.tags ?? tags,
          summary: options.summary,
          security: bearer,
          request: { params: SessionIdParam, ...(options.query ? { query: options.query as never } : {}) },
          responses: { 200: json(options.schema, options.summary), ...errorResponses({ ...owned, notFound: options.notFound ?? owned.notFound }) },
        }),
        async (c: Ctx) => c.json((await read(c, c.req.param("session_id")!)) as never, 200),
      );
    }
  };
  const both = (suffix: string) => [`/api/v1/trading/sessions/{session_id}/risk/${suffix}`, `/api/v1/risk/sessions/{session_id}/${suffix}`];

  view(
    ["/api/v1/trading/sessions/{session_id}/orders"],
    {
      summary: "The orders of one of the session's runs (the current one by default), in the order placed (denied ones with every reason)",
      schema: SessionReads.OrderPage,
      query: SessionReads.OrderQuery,
      notFound: byRun,
    },
    (c, id) => SessionReads.orders(deps, actor(c), id, c.req.query()),
  );
  view(
    ["/api/v1/trading/sessions/{session_id}/positions"],
    { summary: "Position changes, oldest first (paged)", schema: SessionReads.EventPage, query: SessionReads.PageQuery },
    (c, id) => SessionReads.positionHistory(deps, actor(c), id, c.req.query()),
  );
  view(
    ["/api/v1/trading/sessions/{session_id}/positions/latest"],
    { summary: "Open positions at the latest checkpoint, marked at the last price", schema: SessionReads.LatestPositions },
    (c, id) => SessionReads.latestPositions(deps, actor(c), id),
  );
  view(
    ["/api/v1/trading/sessions/{session_id}/logs"],
    {
      summary: "The log of one of the session's runs (the current one by default): its events as lines, optionally of one level (paged)",
      schema: SessionReads.EventPage,
      query: SessionReads.LogQuery,
      notFound: byRun,
    },
    (c, id) => SessionReads.logs(deps, actor(c), id, c.req.query()),
  );
  view(
    ["/api/v1/trading/sessions/{session_id}/performance"],
    {
      summary: "Performance of the session and each channel on one of its runs (the current one by default)",
      schema: SessionReads.SessionPerformance,
      query: SessionReads.RunQuery,
      notFound: byRun,
    },
    (c, id) => SessionReads.sessionPerformance(deps, actor(c), id, c.req.query()),
  );
  view(
    ["/api/v1/trading/sessions/{session_id}/engine/status"],
    { summary: "What the session's engine is doing and where its clock is", schema: SessionReads.EngineStatus },
    (c, id) => SessionReads.engineStatus(deps, actor(c), id),
  );
  view(
    both("summary"),
    { summary: "Risk state: drawdowns, daily P&L, halts and limit usage per channel", schema: SessionRisk.RiskSummary, tags: riskTags },
    (c, id) => SessionRisk.riskSummary(deps, actor(c), id),
  );
  view(
    both("events"),
    { summary: "Risk events, alerts and denied orders, oldest first (paged)", schema: SessionReads.EventPage, query: SessionReads.PageQuery, tags: riskTags },
    (c, id) => SessionRisk.riskEvents(deps, actor(c), id, c.req.query()),
  );
  view(
    both("recommendations"),
    { summary: "Advice derived from the risk state, each with its reason", schema: SessionRisk.Recommendations, tags: riskTags },
    (c, id) => SessionRisk.recommendations(deps, actor(c), id),
  );

  for (const path of both("reset-daily")) {
    app.openapi(
      createRoute({
        method: "post",
        path,
        tags: riskTags,
        summary: "Restart the daily risk counters (trades today, the day's loss anchor, daily-loss halts)",
        security: bearer,
        request: { params: SessionIdParam },
        responses: { 200: json(SessionRisk.ResetDailyResult, "Reset"), ...errorResponses(owned) },
      }),
      async (c) => c.json(await SessionRisk.resetDaily(deps, actor(c), c.req.valid("param").session_id), 200),
    );
  }

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/risk/sessions/{session_id}/config",
      tags: riskTags,
      summary: "Replace the session's risk configuration (validated like /risk/validate; fields left out take the defaults)",
      description:
        'Body: `{"config": {...}}` (RiskConfigRequest) or the configuration itself. Out-of-range values, such as `max_drawdown` outside 0.01 to 1.0, answer 422 listing every problem.',
      security: bearer,
      request: { params: SessionIdParam, ...jsonBody(z.object({ config: Risk.ConfigInput }).or(Risk.ConfigInput)) },
      responses: { 200: json(SessionRisk.RiskConfigUpdateResult, "The configuration now in force"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await SessionRisk.updateRiskConfig(deps, actor(c), c.req.valid("param").session_id, await c.req.json()), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/orders/validate",
      tags,
      summary: "Run a session's pre-trade checks on an order without placing it; every denial is listed",
      security: bearer,
      request: jsonBody(SessionOrders.OrderCheckRequest),
      responses: {
        200: json(SessionOrders.OrderCheckResult, "`valid` and every denial with its reason and numbers"),
        ...errorResponses({ auth: true, notFound: ["SESSION_NOT_FOUND"] }),
      },
    }),
    async (c) => c.json(await SessionOrders.checkOrder(deps, actor(c), c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/orders",
      tags,
      summary: "Place a manual order into a running simulation or live session",
      description:
        "Goes through the channel's pre-trade checks (a denial is answered 201 as data: `status: denied` with every reason) and fills on the session's next bar that opens after it. 409 `SESSION_NOT_RUNNING` (the state named) or `SESSION_NOT_TRADING` (a backtest session); 400 `SYMBOL_NOT_IN_SESSION`; 404 `CHANNEL_NOT_FOUND`.",
      security: bearer,
      request: jsonBody(SessionOrders.OrderCheckRequest),
      responses: {
        201: json(TradingOrderResponse, "Placed (pending) or denied"),
        400: errorResponse("SYMBOL_NOT_IN_SESSION"),
        409: errorResponse(`SESSION_NOT_RUNNING or SESSION_NOT_TRADING; ${KILL_SWITCH_CONFLICT}`),
        ...errorResponses({ auth: true, notFound: ["SESSION_NOT_FOUND", "CHANNEL_NOT_FOUND"], unavailable: ["SERVICE_UNAVAILABLE"] }),
      },
    }),
    async (c) => c.json(await SessionOrders.placeOrder(deps, actor(c), c.req.valid("json")), 201),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/trading/orders/{order_id}/cancel",
      tags,
      summary: "Cancel a pending order of a simulation or live session",
      description:
        "409 `ORDER_NOT_CANCELLABLE` (its status named) once it filled, was cancelled or was denied; 409 `SESSION_NOT_TRADING` for a backtest session's order.",
      security: bearer,
      request: { params: OrderIdParam },
      responses: { 200: json(TradingOrderResponse, "Cancelled"), 409: errorResponse("ORDER_NOT_CANCELLABLE or SESSION_NOT_TRADING"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await SessionOrders.cancelOrder(deps, actor(c), c.req.valid("param").order_id), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/api/v1/trading/orders/{order_id}",
      tags,
      summary: "Replace a pending order's quantity or price (limit and stop orders) in a simulation or live session",
      description:
        "The changed order passes the channel's pre-trade checks as if placed now (the daily order count aside) and keeps its place in the queue. A denied replacement answers 200 with `replaced: false`, every denial, and the order as it was. 409 `ORDER_NOT_REPLACEABLE` (its status named) once it filled, was cancelled, expired or was denied; 409 `SESSION_NOT_TRADING` for a backtest session's order; 422 for a price on a market order or a body with neither field.",
      security: bearer,
      request: { params: OrderIdParam, ...jsonBody(SessionOrders.OrderReplaceRequest) },
      responses: {
        200: json(SessionOrders.OrderReplaceResult, "Replaced, or denied with the reasons"),
        409: errorResponse(`ORDER_NOT_REPLACEABLE or SESSION_NOT_TRADING; ${KILL_SWITCH_CONFLICT}`),
        ...errorResponses(owned),
      },
    }),
    async (c) => c.json(await SessionOrders.replaceOrder(deps, actor(c), c.req.valid("param").order_id, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/trading/orders/{order_id}",
      tags,
      summary: "One order of a session the caller owns",
      security: bearer,
      request: { params: OrderIdParam },
      responses: { 200: json(TradingOrderResponse, "The order"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await SessionReads.order(deps, actor(c), c.req.valid("param").order_id), 200),
  );

  return app;
}
