import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { Calendar } from "../../packages/core/src/market/calendar";
import { dayNumberOf, zonedTimeToUtc } from "../../packages/core/src/market/zoned-time";
import { backtestHandlers } from "../../packages/functions/src/workflow/backtest";
import { LocalWorkflowRunner } from "../../packages/local/src/workflow-runner";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Benchmark-relative figures through the API and the backtest workflow (docs/backtests.md
 * "Benchmark-relative figures"): a backtest that holds its benchmark itself, whole, from the first
 * day's close, measures beta 1, alpha 0 and correlation 1 against it.
 */
let api: TestApi;
let runner: LocalWorkflowRunner;

const WARM_UP = Calendar.for("US").tradingDays("2024-01-02", "2024-01-31");
const WINDOW = Calendar.for("US").tradingDays("2024-02-01", "2024-03-28");
/**
 * Closes falling through January (the 2/3-bar SMAs' fast one below the slow one), 100 on the
 * window's first day (the fast crosses above: a buy at that close), then rising 1 % a day with
 * a wobble too small for the averages ever to cross back.
 */
const closes = [
  ...WARM_UP.map((_, i) => Number((97 + 1.1 * (WARM_UP.length - 1 - i)).toFixed(2))),
  ...WINDOW.map((_, t) => (t === 0 ? 100 : Number((100 * 1.01 ** t * (1 + 0.003 * Math.sin(1.7 * t))).toFixed(2)))),
];
const days = [...WARM_UP, ...WINDOW];

beforeAll(async () => {
  runner = new LocalWorkflowRunner({ backtest: () => backtestHandlers(() => Promise.resolve(api.services)) });
  api = await createTestApi({}, { workflows: runner });
  const candles = days.map((date, i) => {
    const open = i === 0 ? closes[0]! : (closes[i - 1]! + closes[i]!) / 2;
    return {
      timestamp: zonedTimeToUtc("America/New_York", dayNumberOf(date), 0) / 1000,
      open,
      high: Math.max(open, closes[i]!) + 0.5,
      low: Math.min(open, closes[i]!) - 0.5,
      close: closes[i]!,
      volume: 1_000_000,
      turnover: 0,
      trade_session: "Intraday" as const,
    };
  });
  await api.services.candles.upsert("SPY.US", "1d", CandleBatches.fromCandles(candles));
});
afterAll(() => runner.stop());

async function session(token: string) {
  return api.json("POST", "/api/v1/trading/sessions", 201, {
    token,
    body: { session_name: "benchmark", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
  });
}

const request = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  session_id: sessionId,
  strategy_name: "ma_crossover",
  strategy_config: {
    fast_period: 2,
    slow_period: 3,
    execution: { commission: { model: "percent", rate: 0 }, sizing: { model: "cash_fraction", fraction: 1 }, fill: "close", warm_up: true },
    risk_config: null,
  },
  symbols: ["SPY.US"],
  start_date: WINDOW[0],
  end_date: WINDOW.at(-1),
  // 1,000 shares at the first day's close of 100: every cent in the benchmark, none left in cash.
  initial_capital: "100000",
  ...extra,
});

describe("a backtest measured against a benchmark", () => {
  it("holding the benchmark itself, whole, from the first day's close: beta 1, alpha 0, correlation 1", async () => {
    const user = await api.createUser();
    const { id } = await session(user.token);
    const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, { token: user.token, body: request(id, { benchmark: "spy.us" }) });
    expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
    const result = await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
    // One buy of 1,000 at the first day's close, held to the end.
    expect(result.fills.map((f: { side: string; quantity: string; price: string; timestamp: string }) => [f.side, f.quantity, f.price])).toEqual([
      ["buy", "1000", "100"],
    ]);
    expect(result.final_cash_by_currency.USD).toBe("0");
    const { benchmark } = result;
    expect(benchmark.symbol).toBe("SPY.US");
    // Rounded to 6 decimals as the result's ratios are: within 5e-7 of the exact figures.
    expect(benchmark.beta).toBe(1);
    expect(benchmark.alpha).toBe(0);
    expect(benchmark.correlation).toBe(1);
    expect(benchmark.tracking_error).toBe(0);
    // No active risk at all: the ratio over it is undefined.
    expect(benchmark.information_ratio).toBeNull();
    const firstOpen = (closes[WARM_UP.length - 1]! + 100) / 2;
    expect(benchmark.total_return).toBeCloseTo(closes.at(-1)! / firstOpen - 1, 6);
    // The benchmark's line is the initial capital held in it from the first open, on the equity curve's dates.
    expect(benchmark.equity_curve.map((p: { date: string }) => p.date)).toEqual(result.equity_curve.map((p: { date: string }) => p.date));
    expect(benchmark.equity_curve[0].equity).toBe(((100000 * 100) / firstOpen).toFixed(2));
    expect(benchmark.equity_curve.at(-1).equity).toBe(((100000 * closes.at(-1)!) / firstOpen).toFixed(2));
  });

  it("answers benchmark null without one", async () => {
    const user = await api.createUser();
    const { id } = await session(user.token);
    const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, { token: user.token, body: request(id) });
    expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
    expect((await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token })).benchmark).toBeNull();
  });

  it("refuses a benchmark the provider does not know, or a malformed one, at body.benchmark with the request's other problems", async () => {
    const user = await api.createUser();
    const { id } = await session(user.token);
    const unknown = await api.json("POST", "/api/v1/backtest/start", 422, {
      token: user.token,
      body: request(id, { benchmark: "FOOBAR.US", end_date: "2024-01-01" }),
    });
    expect(unknown.detail.map((d: { loc: string[]; type: string; msg: string }) => [d.loc.join("."), d.type, d.msg])).toEqual([
      ["body.benchmark", "invalid_symbol", "FOOBAR.US is not a symbol the market-data provider knows"],
      ["body.end_date", "value_error", "end_date is before start_date"],
    ]);
    const malformed = await api.json("POST", "/api/v1/backtest/start", 422, { token: user.token, body: request(id, { benchmark: "???" }) });
    expect(malformed.detail.map((d: { loc: string[]; type: string }) => [d.loc.join("."), d.type])).toEqual([["body.benchmark", "invalid_symbol"]]);
    // A body its schema refuses is checked further: the benchmark's problem is listed beside the schema's.
    const both = await api.json("POST", "/api/v1/backtest/start", 422, {
      token: user.token,
      body: request(id, { benchmark: "FOOBAR.US", initial_capital: "-1" }),
    });
    expect(both.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(["body.initial_capital", "body.benchmark"]);
  });
});
