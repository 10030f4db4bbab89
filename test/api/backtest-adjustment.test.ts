import { beforeAll, describe, expect, it } from "vitest";
import { Backtests } from "../../packages/core/src/backtests/index";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { Calendar } from "../../packages/core/src/market/calendar";
import { dayNumberOf, zonedTimeToUtc } from "../../packages/core/src/market/zoned-time";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * A stored 5-for-1 split in a backtest (docs/backtests.md "Prices and corporate actions"): daily
 * candles of a simulated-universe symbol stored at their traded prices, about 500 before the
 * ex-date and about 100 from it on, with the action stored as an import would have learnt it; the
 * tasks run by hand (prepare, chunks, finalize) against DynamoDB Local.
 */
let api: TestApi;
let user: { id: string; token: string };

const SYMBOL = "MSFT.US";
const EX_DATE = "2024-02-08";
const calendar = Calendar.for("US");
const DAYS = calendar.tradingDays("2024-01-02", "2024-03-08");
const EX = DAYS.indexOf(EX_DATE);

/** The day's price before any split: falls for twelve days (so the averages cross upwards after), then rises steadily. */
const price = (d: number) => (d < 12 ? 520 - 5 * d : 465 + 2 * (d - 12));
/** The stored (traded) bar of day `d`: a fifth of the price, five times the volume, from the ex-date on. */
const storedBar = (d: number) => {
  const scale = d >= EX ? 0.2 : 1;
  const close = price(d) * scale;
  const open = (price(d) - 1) * scale;
  return {
    timestamp: zonedTimeToUtc(calendar.timeZone, dayNumberOf(DAYS[d]!), 0) / 1000,
    open,
    high: Math.max(open, close) + scale,
    low: Math.min(open, close) - scale,
    close,
    volume: 1_000_000 / scale,
    turnover: 0,
    trade_session: "Intraday" as const,
  };
};

beforeAll(async () => {
  api = await createTestApi({}, { workflows: { start: async () => undefined } });
  user = await api.createUser();
  await api.services.candles.upsert(SYMBOL, "1d", CandleBatches.fromCandles(DAYS.map((_, d) => storedBar(d))));
  await api.services.imports.corporateActions.save({
    symbol: SYMBOL,
    actions: [{ ex_date: EX_DATE, ratio: 0.2 }],
    version: 1,
    updated_at: new Date().toISOString(),
  });
});

/** A backtest of ma_crossover 3/10 over the days, holding 95 % of equity, without fees, risk rules or slippage in the way. */
async function backtest(adjust?: "forward" | "none", options: { warm_up?: boolean; start?: number } = {}) {
  const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
    token: user.token,
    body: { session_name: `split ${adjust ?? "default"}`, trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
  });
  const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, {
    token: user.token,
    body: {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: {
        fast_period: 3,
        slow_period: 10,
        execution: {
          commission: { model: "percent", rate: 0 },
          sizing: { model: "cash_fraction", fraction: 0.95 },
          fill: "next_open",
          ...(adjust ? { adjust } : {}),
          ...(options.warm_up ? { warm_up: true } : {}),
        },
        risk_config: null,
      },
      symbols: [SYMBOL],
      start_date: DAYS[options.start ?? 0],
      end_date: DAYS.at(-1),
      initial_capital: 100000,
    },
  });
  const deps = api.services.trading.backtests;
  let step = await Backtests.prepare(deps, { backtest_id });
  expect(step.status).toBe("running");
  // Chunks of 7 bars: the adjustment is the same in every chunk, before and after the ex-date.
  while (step.status === "running") step = await Backtests.runChunk(deps, { backtest_id }, Date.now() + 60_000, 7);
  await Backtests.finalize(deps, { backtest_id });
  return api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
}

describe("a stored 5-for-1 split in a backtest", () => {
  it("is no crash by default: bars before the ex-date are forward-adjusted, the choice and the action are recorded", async () => {
    const result = await backtest();
    expect(result.execution.adjust).toBe("forward");
    expect(result.price_adjustment).toEqual({ mode: "forward", actions: [{ symbol: SYMBOL, ex_date: EX_DATE, ratio: 0.2 }] });
    // One entry before the ex-date, held through it to the end.
    expect(result.fills.map((f: { side: string }) => f.side)).toEqual(["buy"]);
    const [entry] = result.fills;
    const entryDay = DAYS.findLastIndex((date) => zonedTimeToUtc(calendar.timeZone, dayNumberOf(date), 0) <= Date.parse(entry.timestamp));
    expect(entryDay).toBeGreaterThan(12);
    expect(entryDay).toBeLessThan(EX);
    // Its price is the stored open times the ratio: about 100, not about 500.
    expect(Number(entry.price)).toBeCloseTo(storedBar(entryDay).open * 0.2, 4);
    expect(Number(entry.quantity)).toBeGreaterThan(900);
    expect(result.performance_metrics.max_drawdown).toBeLessThan(0.01);
    // Held from about 95 to the last close (about 115): a gain, not a loss of 80 %.
    expect(Number(result.final_capital)).toBeGreaterThan(100000);
    expect(result.warnings.map((w: { code: string }) => w.code)).not.toContain("UNADJUSTED_PRICES");
  });

  it('shows the split as the 80 % fall of the prices as traded under adjust "none", and warns UNADJUSTED_PRICES', async () => {
    const result = await backtest("none");
    expect(result.price_adjustment).toEqual({ mode: "none", actions: [{ symbol: SYMBOL, ex_date: EX_DATE, ratio: 0.2 }] });
    const [entry, exit] = result.fills;
    expect(Number(entry.price)).toBeGreaterThan(400);
    // The averages cross down on the ex-date's close: out at the next open, about a fifth of the entry.
    expect(exit).toMatchObject({ side: "sell" });
    expect(Number(exit.price)).toBeLessThan(120);
    expect(result.performance_metrics.max_drawdown).toBeGreaterThan(0.7);
    expect(result.warnings.find((w: { code: string }) => w.code === "UNADJUSTED_PRICES")).toEqual({
      code: "UNADJUSTED_PRICES",
      count: 1,
      message: expect.stringContaining(`${SYMBOL} ${EX_DATE} (ratio 0.2)`),
    });
  });

  it("adjusts the warm-up's bars too: a window starting after the ex-date, warmed up across it, sees no fall", async () => {
    const start = EX + 3;
    // Without warm-up the run reads no bar before the ex-date: no action is inside it.
    expect((await backtest("forward", { start })).price_adjustment).toEqual({ mode: "forward", actions: [] });
    const warmed = await backtest("forward", { start, warm_up: true });
    expect(warmed.price_adjustment.actions).toEqual([{ symbol: SYMBOL, ex_date: EX_DATE, ratio: 0.2 }]);
    // Warmed up on adjusted bars, the averages rise together through the window: no cross, no trade.
    expect(warmed.fills).toEqual([]);
    // Warmed up on the prices as traded, the fall puts the fast average under the slow one, and the recovery crosses it back: a buy.
    const unadjusted = await backtest("none", { start, warm_up: true });
    expect(unadjusted.fills.map((f: { side: string }) => f.side)).toEqual(["buy"]);
    expect(unadjusted.warnings.map((w: { code: string }) => w.code)).toContain("UNADJUSTED_PRICES");
  });
});
