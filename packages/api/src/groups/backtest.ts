import { createRoute, z } from "@hono/zod-openapi";
import { Backtests, type Sweeps } from "@tp/core/backtests/index";
import { type AppEnv, bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";
import { checkingFurther } from "../http/errors";

const BacktestIdParam = z.object({ backtest_id: z.string().min(1).max(128) });
const tags = ["backtest"];
const owned = { auth: true, notFound: true } as const;
const transitionConflict = { 409: errorResponse("INVALID_STATE_TRANSITION: not allowed in the backtest's state (`current_status` names it)") };

/**
 * Backtests (docs/backtests.md): started on a backtest-mode session, run by the backtest state
 * machine in chunks over stored candles (missing ones imported first), controlled by durable
 * pause, resume and stop flags.
 */
export function backtestGroup(services: GroupServices & { trading: { backtests: Sweeps.SweepControlDeps } }) {
  const app = createGroup();
  app.use("/api/v1/backtest/*", requireAuth(services));
  const deps = services.trading.backtests;

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/backtest",
      tags,
      summary: "A session's backtests, newest first (its runs reachable from the session)",
      description:
        "Every backtest of the session, a sweep's runs among them (`sweep_id`), newest first, `limit` at a time; `cursor` from the answer before for the next page. The session's owner's, or an administrator's.",
      security: bearer,
      request: { query: Backtests.BacktestListQuery },
      responses: { 200: json(Backtests.BacktestList, "The session's backtests"), ...errorResponses({ auth: true, notFound: ["SESSION_NOT_FOUND"] }) },
    }),
    async (c) => c.json(await Backtests.list(deps, c.get("principal").user, c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/backtest/start",
      tags,
      summary: "Start a backtest on a session",
      description:
        "`strategy_config` holds the strategy's parameters (missing ones take their defaults) plus `execution` (commission, sizing, fill, slippage_bps, timeframe), an optional `risk_config` laid over the session's (fields it leaves out are the session's; without one the session's applies; `null`: no risk rules at all) and an optional `timeframe`. `strategy_name: \"multi_channel\"` runs the session's own channels. A request the run could only fail on or run empty answers 422 before anything runs, listing every problem at once: symbols the market-data provider does not know, dates outside the exchange calendar, a range without a trading day (or none begun yet), the strategy's configuration, and a sizing the risk limits the run applies can never allow (never under `risk_config: null`).",
      security: bearer,
      request: jsonBody(Backtests.BacktestRequest),
      responses: {
        200: json(Backtests.BacktestResponse, "Started"),
        ...transitionConflict,
        ...errorResponses({ auth: true, notFound: ["SESSION_NOT_FOUND"], unavailable: ["SERVICE_UNAVAILABLE"] }),
      },
    }),
    async (c) => {
      const backtest = await Backtests.start(deps, c.get("principal").user, c.req.valid("json"));
      return c.json({ success: true, message: `Backtest ${backtest.id} started`, backtest_id: backtest.id, performance_metrics: null }, 200);
    },
    // A body its schema refuses is checked further on its well-formed fields: one 422 lists every problem.
    checkingFurther<AppEnv>((body, issues, c) => Backtests.invalidRequest(deps, c.get("principal").user, body, issues)),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/backtest/{backtest_id}/progress",
      tags,
      summary: "Progress: the stage, the share of bars processed and the simulated clock",
      security: bearer,
      request: { params: BacktestIdParam },
      responses: { 200: json(Backtests.BacktestProgress, "Progress"), ...errorResponses(owned) },
    }),
    async (c) => c.json(await Backtests.progress(deps, c.get("principal").user, c.req.valid("param").backtest_id), 200),
  );

  const controls = { pause: Backtests.pause, resume: Backtests.resume, stop: Backtests.stop } as const;
  const summaries = {
    pause: "Pause at the next checkpoint (inside a chunk too, and after its last bar); the checkpoint survives restarts",
    resume: "Continue a paused backtest from its checkpoint",
    stop: "Stop and finalise the result of what ran",
  };
  for (const [action, run] of Object.entries(controls) as [keyof typeof controls, (typeof controls)[keyof typeof controls]][]) {
    app.openapi(
      createRoute({
        method: "post",
        path: `/api/v1/backtest/{backtest_id}/${action}`,
        tags,
        summary: summaries[action],
        security: bearer,
        request: { params: BacktestIdParam },
        responses: { 200: json(Backtests.BacktestControlResult, "The backtest's new status"), ...transitionConflict, ...errorResponses(owned) },
      }),
      async (c) => c.json(await run(deps, c.get("principal").user, c.req.valid("param").backtest_id), 200),
    );
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/backtest/{backtest_id}/result",
      tags,
      summary: "The result: metrics, final capital, fills, closed trades and the equity curve",
      security: bearer,
      request: { params: BacktestIdParam },
      responses: {
        200: json(Backtests.BacktestResult, "The result"),
        409: errorResponse("BACKTEST_NOT_FINISHED while it runs; BACKTEST_FAILED with the reason"),
        ...errorResponses(owned),
      },
    }),
    async (c) => c.json(await Backtests.result(deps, c.get("principal").user, c.req.valid("param").backtest_id), 200),
  );

  return app;
}
