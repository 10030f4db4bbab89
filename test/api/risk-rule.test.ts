import { beforeAll, describe, expect, it } from "vitest";
import { Backtests } from "../../packages/core/src/backtests/index";
import { createTestApi, type TestApi } from "../support/harness";
import { intradayBars, storeBars } from "../support/stored-bars";

/**
 * One rule for which risk configuration applies (docs/trading-sessions.md, "Which risk
 * configuration applies"): the session's, unless the run gives its own, in a backtest as in a
 * simulation session's replay. The session allows two orders a day (its other limits the default
 * preset's), fewer than its fast crossover signals: both runs deny the same orders for the same
 * reason. (A sizing over the position limit, which would deny every entry, is refused when the
 * session is created: test/api/backtest-requests.test.ts.)
 */
const DAYS = ["2024-04-01", "2024-04-02", "2024-04-03"];
const { fine } = intradayBars("AAPL.US", DAYS, 11, 1);
const h = {} as { api: TestApi; token: string };
beforeAll(async () => {
  // The backtest's workflow is driven by hand below (its tasks in the machine's order).
  h.api = await createTestApi({}, { workflows: { start: async () => undefined } });
  h.token = (await h.api.createUser()).token;
  await storeBars(h.api.services, "5m", fine);
});

const parameters = { fast_period: 3, slow_period: 8 };
const execution = { commission: { model: "percent", rate: 0.001 } };
const config = { strategy_name: "ma_crossover", parameters, symbols: ["AAPL.US"], timeframe: "5m", execution, risk_config: { max_daily_trades: 2 } };

interface Order {
  status: string;
  side: string;
  created_at: string;
  denials?: { reason: string }[];
}

async function runOrders(runId: string): Promise<Order[]> {
  const page = await h.api.services.trading.sessions.runs.orders(runId, { limit: 500 });
  return page.items as unknown as Order[];
}

const denied = (orders: Order[]) =>
  orders.filter((o) => o.status === "denied").map((o) => ({ side: o.side, at: o.created_at, reasons: (o.denials ?? []).map((d) => d.reason) }));

async function session(tradingMode: "simulation" | "backtest") {
  return h.api.json("POST", "/api/v1/trading/sessions", 201, {
    token: h.token,
    body: { session_name: `rule ${tradingMode}`, trading_mode: tradingMode, asset_mode: "simulated", initial_capital: "100000", config },
  });
}

async function backtest(strategyConfig: Record<string, unknown>) {
  const { id } = await session("backtest");
  const { backtest_id } = await h.api.json("POST", "/api/v1/backtest/start", 200, {
    token: h.token,
    body: {
      session_id: id,
      strategy_name: "ma_crossover",
      strategy_config: strategyConfig,
      symbols: ["AAPL.US"],
      start_date: DAYS[0],
      end_date: DAYS[2],
      initial_capital: 100000,
    },
  });
  const deps = h.api.services.trading.backtests;
  let step = await Backtests.prepare(deps, { backtest_id });
  expect(step.status).toBe("running");
  while (step.status === "running") step = await Backtests.runChunk(deps, { backtest_id }, Date.now() + 60_000, 1000);
  await Backtests.finalize(deps, { backtest_id });
  const result = await h.api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: h.token });
  const summary = await h.api.json("GET", `/api/v1/risk/sessions/${id}/summary`, 200, { token: h.token });
  return { result, summary, orders: await runOrders(backtest_id) };
}

describe("which risk configuration applies", () => {
  it("is the session's in a backtest and in a simulation session's replay: both deny the same orders", async () => {
    const simulation = await session("simulation");
    await h.api.json("POST", `/api/v1/trading/sessions/${simulation.id}/replay/start`, 200, {
      token: h.token,
      body: { start_date: DAYS[0], end_date: DAYS[2], paused: true },
    });
    await h.api.json("POST", `/api/v1/trading/sessions/${simulation.id}/replay/control`, 200, { token: h.token, body: { action: "step", bars: fine.length } });
    const replayed = denied(await runOrders(`${simulation.id}-replay`));
    // The replay's status says what it did.
    const status = await h.api.json("GET", `/api/v1/trading/sessions/${simulation.id}/replay/status`, 200, { token: h.token });
    expect(status).toMatchObject({ orders: (await runOrders(`${simulation.id}-replay`)).length, denied_orders: replayed.length });

    const backtested = await backtest({ ...parameters, timeframe: "5m", execution });
    expect(replayed.length).toBeGreaterThan(0);
    expect(replayed.every((order) => order.reasons.includes("MAX_DAILY_TRADES_EXCEEDED"))).toBe(true);
    expect(denied(backtested.orders)).toEqual(replayed);
    // The run shows what it applied: the session's (default) configuration.
    expect(backtested.result.risk_config).toEqual(simulation.config.risk_config);
    expect(backtested.summary.risk_config).toEqual(simulation.config.risk_config);
  });

  it("is the run's own when a backtest gives one, over the session's", async () => {
    // Entries at 95 % of free cash, within the run's own position and per-trade loss limits; the session's two orders a day still apply.
    const sized = { ...execution, sizing: { model: "cash_fraction", fraction: 0.95 } };
    const own = await backtest({ ...parameters, timeframe: "5m", execution: sized, risk_config: { max_position_size: 1, max_loss_per_trade: 0.1 } });
    expect(own.result.risk_config).toMatchObject({ max_position_size: 1, max_loss_per_trade: 0.1, max_drawdown: 0.2, max_daily_trades: 2 });
    expect(own.summary.risk_config).toEqual(own.result.risk_config);
    expect(denied(own.orders).filter((order) => order.reasons.includes("MAX_POSITION_EXCEEDED"))).toEqual([]);
    expect(own.orders.filter((order) => order.status === "filled").length).toBeGreaterThan(0);
  });
});
