import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { referenceCase, REFERENCE_RISK } from "../../packages/core/src/engine/testing/reference";
import type { Bar } from "../../packages/core/src/strategies/strategy";
import { backtestHandlers } from "../../packages/functions/src/workflow/backtest";
import { LocalWorkflowRunner } from "../../packages/local/src/workflow-runner";
import { createTestApi, type TestApi } from "../support/harness";

/** The backtest state machine end to end: the API starts it, the local runner runs the ASL file with the Lambda task handlers. */
let api: TestApi;
let runner: LocalWorkflowRunner;
const started: string[] = [];

beforeAll(async () => {
  runner = new LocalWorkflowRunner({ backtest: () => backtestHandlers(() => Promise.resolve(api.services)) });
  const recording = { start: (...args: Parameters<LocalWorkflowRunner["start"]>) => (started.push(args[1]), runner.start(...args)) };
  api = await createTestApi({}, { workflows: recording });
});
afterAll(() => runner.stop());

/** Stores `bars` as `symbol`'s daily candles and starts the reference rules' SMA crossover over them (from `firstBar`) in a new user's backtest session. */
async function referenceBacktest(symbol: string, bars: Bar[], execution: Record<string, unknown>, firstBar = 0) {
  const user = await api.createUser();
  const { rules } = referenceCase("AAPL.US");
  const candles = bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));
  await api.services.candles.upsert(symbol, "1d", CandleBatches.fromCandles(candles));
  const day = (ms: number) => new Date(ms + 43_200_000).toISOString().slice(0, 10);
  const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
    token: user.token,
    body: { session_name: "workflow", trading_mode: "backtest", asset_mode: "simulated", initial_capital: rules.initial_cash, config: {} },
  });
  const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, {
    token: user.token,
    body: {
      session_id: session.id,
      strategy_name: "ma_crossover",
      // The reference rules hold 95 % of equity in one symbol: over the session's default risk configuration.
      strategy_config: { fast_period: rules.fast, slow_period: rules.slow, execution, risk_config: REFERENCE_RISK },
      symbols: [symbol],
      start_date: day(bars[firstBar]!.timestamp),
      end_date: day(bars.at(-1)!.timestamp),
      initial_capital: rules.initial_cash,
    },
  });
  return { user, session, backtest_id: backtest_id as string };
}

describe("a backtest run by the local workflow runner", () => {
  it("goes from the start request through Prepare, the chunks and Finalize to its result", async () => {
    const ref = referenceCase("AAPL.US");
    const { user, backtest_id } = await referenceBacktest("AAPL.US", ref.bars, {
      commission: { model: "percent", rate: ref.rules.commission_rate },
      sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
      fill: "next_open",
    });
    expect(started).toEqual([`${backtest_id}-1`]);
    expect(await runner.outcome("backtest", `${backtest_id}-1`)).toEqual({ status: "SUCCEEDED", output: { backtest_id, status: "done" } });
    const progress = await api.json("GET", `/api/v1/backtest/${backtest_id}/progress`, 200, { token: user.token });
    expect(progress).toMatchObject({ progress: 100, status: "completed", bars_processed: ref.bars.length });
    const result = await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
    // The reference engine's fills and final value, under its rules, through the HTTP API and the state machine.
    expect(result.fills.map((f: { side: string; quantity: string }) => [f.side, Number(f.quantity)])).toEqual(ref.fills.map((f) => [f.side, f.quantity]));
    ref.fills.forEach((fill, i) => {
      expect(Math.abs(Number(result.fills[i].price) - fill.price)).toBeLessThan(1e-6);
      expect(Math.abs(Number(result.fills[i].commission) - fill.commission)).toBeLessThan(1e-6);
    });
    expect(Math.abs(Number(result.final_value_by_currency.USD) - ref.final_value)).toBeLessThan(1e-6);
  });

  it("lists one fill per part of an order filled across bars under max_participation, adding up to the order", async () => {
    // The reference bars with 1,000 shares traded a day: at 20 %, 200 shares a bar.
    const bars = referenceCase("AAPL.US").bars.map((bar) => ({ ...bar, volume: 1000 }));
    const { user, session, backtest_id } = await referenceBacktest("MSFT.US", bars, {
      commission: { model: "percent", rate: 0.001 },
      sizing: { model: "cash_fraction", fraction: 0.95 },
      max_participation: 0.2,
    });
    expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
    const result = await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
    expect(result.execution.max_participation).toBe(0.2);
    const byOrder = new Map<string, number>();
    for (const fill of result.fills as { order_id: string; quantity: string }[]) {
      expect(Number(fill.quantity)).toBeLessThanOrEqual(200);
      byOrder.set(fill.order_id, (byOrder.get(fill.order_id) ?? 0) + Number(fill.quantity));
    }
    expect(result.fills.length).toBeGreaterThan(byOrder.size);
    const { orders } = await api.json("GET", `/api/v1/trading/sessions/${session.id}/orders?limit=500`, 200, { token: user.token });
    for (const order of orders as { id: string; filled_quantity: string | null; filled_price: string | null }[]) {
      if (!byOrder.has(order.id)) continue;
      expect(Number(order.filled_quantity)).toBe(byOrder.get(order.id));
      // The average of fills in parts, answered to 4 decimal places.
      expect(order.filled_price).toMatch(/^\d+(\.\d{1,4})?$/);
    }
  });

  it("with execution.warm_up, trades from the window's first days on the history before it, as an unbroken run does", async () => {
    const ref = referenceCase("AAPL.US");
    // A buy of the reference run well inside the series, and a window that starts two bars before its signal.
    const entry = ref.fills.find((fill) => fill.side === "buy" && fill.bar_index > 3 * ref.rules.slow)!;
    const firstBar = entry.bar_index - 3;
    const execution = {
      commission: { model: "percent", rate: ref.rules.commission_rate },
      sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
      fill: "next_open",
    };
    const fillsOf = async (symbol: string, warmUp: boolean) => {
      const { user, session, backtest_id } = await referenceBacktest(symbol, ref.bars, { ...execution, warm_up: warmUp }, firstBar);
      expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
      const result = await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
      const { items } = await api.json("GET", `/api/v1/trading/sessions/${session.id}/logs?limit=5`, 200, { token: user.token });
      return { fills: result.fills as { timestamp: string; side: string }[], logs: items as { message: string; data: Record<string, unknown> }[] };
    };
    const warm = await fillsOf("NVDA.US", true);
    expect(warm.logs[0]!.data.warm_up).toEqual({ symbol: "NVDA.US", timeframe: "1d", bars: ref.rules.slow + 1, wanted: ref.rules.slow + 1 });
    // The unbroken reference run's entry, on the same bar.
    expect(warm.fills[0]).toMatchObject({ side: "buy", timestamp: new Date(entry.timestamp * 1000).toISOString() });
    // Cold, the strategy has not seen enough bars by then.
    const cold = await fillsOf("AMD.US", false);
    expect(Date.parse(cold.fills[0]!.timestamp)).toBeGreaterThanOrEqual(ref.bars[firstBar + ref.rules.slow]!.timestamp);
    expect(cold.logs.some((line) => line.data.warm_up !== undefined)).toBe(false);
  });
});
