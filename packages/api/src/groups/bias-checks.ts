import { createRoute, z } from "@hono/zod-openapi";
import { BiasChecks } from "@tp/core/backtests/index";
import { bearer, createGroup, errorResponses, json, jsonBody, requireAuth, type GroupServices } from "../http/group";

const CheckIdParam = z.object({ check_id: z.string().min(1).max(128) });
const tags = ["backtest"];

/**
 * Bias checks (docs/backtests.md "Bias checks"): a strategy run over stored candles cut at several
 * instants (look-ahead) and started fresh at several later bars (warm-up too short), answered at
 * once with the report, which is stored for its owner. A group of its own (its own function):
 * mounted before the backtest group, since `/api/v1/backtest/bias-checks/...` is never a backtest id's.
 */
export function biasChecksGroup(services: GroupServices & { trading: { biasChecks: BiasChecks.BiasCheckDeps } }) {
  const app = createGroup();
  for (const path of ["/api/v1/backtest/bias-checks", "/api/v1/backtest/bias-checks/*"]) app.use(path, requireAuth(services));
  const deps = services.trading.biasChecks;
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/v1/backtest/bias-checks",
      tags,
      summary: "Check a strategy for look-ahead and for a warm-up too short, over stored candles",
      description: `Runs the strategy (and the engine, for its orders) over the stored candles of the range, then again with the candles cut at \`cuts\` instants (default 5): any signal, order or value of the strategy's state at a bar up to a cut that differs from the full run is a look-ahead finding, with its first bar, field and both values. Then starts it fresh at \`starts\` later bars (default 3): an indicator still differing from the full run after the declared warm-up by more than \`tolerance\` (relative to its mean size; default 0.001) is a recursive finding, with the bars it needs to agree. Synchronous: at most ${BiasChecks.BIAS_CHECK_LIMITS.symbols} symbols and ${BiasChecks.BIAS_CHECK_LIMITS.bars} stored bars in all (422 above, and 422 naming a symbol without stored candles in the range: import them first). The report is stored: GET /api/v1/backtest/bias-checks/{check_id} reads it back.`,
      security: bearer,
      request: jsonBody(BiasChecks.BiasCheckRequest),
      responses: { 200: json(BiasChecks.BiasCheckReport, "The report"), ...errorResponses({ auth: true }) },
    }),
    async (c) => c.json(await BiasChecks.run(deps, c.get("principal").user, c.req.valid("json")), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/v1/backtest/bias-checks/{check_id}",
      tags,
      summary: "A stored bias check report (its owner's)",
      security: bearer,
      request: { params: CheckIdParam },
      responses: { 200: json(BiasChecks.BiasCheckReport, "The report"), ...errorResponses({ auth: true, notFound: ["BIAS_CHECK_NOT_FOUND"] }) },
    }),
    async (c) => c.json(await BiasChecks.get(deps, c.get("principal").user, c.req.valid("param").check_id), 200),
  );
  return app;
}
