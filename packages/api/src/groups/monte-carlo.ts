import { createRoute, z } from "@hono/zod-openapi";
import { MonteCarlo, type Sweeps } from "@tp/core/backtests/index";
import { bearer, createGroup, errorResponse, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const BacktestIdParam = z.object({ backtest_id: z.string().min(1).max(128) });

/**
 * Monte Carlo of a finished backtest (docs/backtests.md "Monte Carlo"): a group of its own (its own
 * function: the backtest group's is at its size limit), mounted before the backtest group, whose
 * `/api/v1/backtest/{proxy+}` would otherwise take the path.
 */
export function monteCarloGroup(services: GroupServices & { trading: { backtests: Sweeps.SweepControlDeps } }) {
  const app = createGroup();
  app.use("/api/v1/backtest/:backtest_id/monte-carlo", requireAuth(services));
  const deps = services.trading.backtests;
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/backtest/{backtest_id}/monte-carlo",
      tags: ["backtest"],
      summary: "Monte Carlo of a finished backtest's closed trades: percentiles of final equity, return and drawdown, and the equity path's bands",
      description:
        "Runs `paths` paths (default 1,000, at most 100,000) of the backtest's closed trades, each trade as its return on the equity before it: `reshuffle` puts them in a random order (every path ends at `trades_final_equity`, the backtest's final capital when it ended flat; only the path differs), `bootstrap` draws as many with replacement. Answers the 5th, 25th, 50th, 75th and 95th percentiles (nearest rank) of final equity, total return, maximum drawdown and its duration in trades and in calendar days (step k of every path dated at the backtest's k-th exit), and the equity path's percentile bands at up to 200 trade indices. Deterministic for a `seed` (xoshiro128**); without one a seed is drawn and the answer names it. The backtest's owner's, or an administrator's.",
      security: bearer,
      request: { params: BacktestIdParam, ...jsonBody(MonteCarlo.MonteCarloRequest) },
      responses: {
        200: json(MonteCarlo.MonteCarloResult, "The paths' percentiles"),
        409: errorResponse(
          "BACKTEST_NOT_FINISHED while it runs; BACKTEST_FAILED with the reason; MONTE_CARLO_UNDEFINED when it closed no trade (or its equity before a trade was not above zero)",
        ),
        ...errorResponses({ auth: true, notFound: ["BACKTEST_NOT_FOUND"] }),
      },
    }),
    async (c) => c.json(await MonteCarlo.run(deps, c.get("principal").user, c.req.valid("param").backtest_id, c.req.valid("json")), 200),
  );
  return app;
}
