import { beforeAll, describe, expect, it } from "vitest";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { referenceCase } from "../../packages/core/src/engine/testing/reference";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Bias checks through the API (docs/backtests.md "Bias checks"): the reference fixtures' stored
 * AAPL.US bars, checked synchronously, the report stored for its owner.
 */
let api: TestApi;
const ref = referenceCase("AAPL.US");
const day = (ms: number) => new Date(ms + 43_200_000).toISOString().slice(0, 10);
const first = day(ref.bars[0]!.timestamp);
const last = day(ref.bars.at(-1)!.timestamp);

beforeAll(async () => {
  api = await createTestApi();
  const candles = ref.bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));
  await api.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
  await api.services.candles.upsert("MSFT.US", "1d", CandleBatches.fromCandles(candles));
});

const body = (overrides: Record<string, unknown> = {}) => ({
  strategy_name: "ma_crossover",
  strategy_config: { fast_period: 10, slow_period: 30 },
  symbols: ["AAPL.US"],
  start_date: first,
  end_date: day(ref.bars[Math.min(ref.bars.length - 1, 400)]!.timestamp),
  ...overrides,
});

describe("bias checks", () => {
  it("answers the report at once, stores it for its owner and no one else", async () => {
    const user = await api.createUser();
    const report = await api.json("POST", "/api/v1/backtest/bias-checks", 200, { token: user.token, body: body({ cuts: 4, starts: 2 }) });
    expect(report.passed).toBe(true);
    expect(report.lookahead).toEqual({ passed: true, findings: [] });
    expect(report.recursive).toEqual({ passed: true, findings: [] });
    expect(report.cuts).toHaveLength(4);
    expect(report.starts["AAPL.US"]).toHaveLength(2);
    expect(report.warmup_bars).toBe(31);
    expect(report.settle_bars).toBe(31);
    expect(report.bars["AAPL.US"]).toBeGreaterThan(200);
    expect(report.parameters).toMatchObject({ fast_period: 10, slow_period: 30, ma_type: "sma" });
    expect(await api.json("GET", `/api/v1/backtest/bias-checks/${report.check_id}`, 200, { token: user.token })).toEqual(report);
    const other = await api.createUser();
    await api.json("GET", `/api/v1/backtest/bias-checks/${report.check_id}`, 403, { token: other.token });
    await api.json("GET", "/api/v1/backtest/bias-checks/no-such-check", 404, { token: user.token });
  });

  it("compares an RSI after the bars its Wilder smoothing declares it needs to settle, not after its first signal's warm-up", async () => {
    const user = await api.createUser();
    const report = await api.json("POST", "/api/v1/backtest/bias-checks", 200, {
      token: user.token,
      body: body({ strategy_name: "rsi_mean_reversion", strategy_config: {} }),
    });
    expect(report.warmup_bars).toBe(15);
    expect(report.settle_bars).toBe(127);
    expect(report.starts["AAPL.US"]).toHaveLength(3);
    expect(report.lookahead).toEqual({ passed: true, findings: [] });
    expect(report.recursive).toEqual({ passed: true, findings: [] });
    expect(report.passed).toBe(true);
    // A range without room for a fresh start and its settle bars is refused, not passed for want of bars.
    const short = await api.json("POST", "/api/v1/backtest/bias-checks", 422, {
      token: user.token,
      body: body({ strategy_name: "trend_director", strategy_config: {} }),
    });
    expect(short.detail).toEqual([expect.objectContaining({ loc: ["body", "end_date"], type: "too_few_bars" })]);
    expect(short.detail[0].msg).toContain("the 904 bars its indicators need to settle, so it needs at least 906");
  });

  it("refuses before running: every problem of the body, candles not stored, more bars than a check runs over", async () => {
    const user = await api.createUser();
    const bad = await api.json("POST", "/api/v1/backtest/bias-checks", 422, {
      token: user.token,
      body: body({ strategy_name: "no_such", symbols: ["NOPE"], start_date: "2024-05-01", end_date: "2024-04-01", cuts: 11 }),
    });
    const locs = bad.detail.map((d: { loc: string[] }) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.cuts"]));
    const unknown = await api.json("POST", "/api/v1/backtest/bias-checks", 422, {
      token: user.token,
      body: body({ strategy_name: "no_such", symbols: ["NOPE"], start_date: "2024-05-01", end_date: "2024-04-01" }),
    });
    expect(unknown.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(
      expect.arrayContaining(["body.symbols.0", "body.end_date", "body.strategy_name"]),
    );
    const missing = await api.json("POST", "/api/v1/backtest/bias-checks", 422, { token: user.token, body: body({ symbols: ["NVDA.US"] }) });
    expect(missing.detail[0].msg).toContain("no stored 1d candles of NVDA.US");
    const long = await api.json("POST", "/api/v1/backtest/bias-checks", 422, {
      token: user.token,
      body: body({ symbols: ["AAPL.US", "MSFT.US"], end_date: last }),
    });
    expect(long.detail).toEqual([expect.objectContaining({ loc: ["body", "end_date"], type: "too_many_bars" })]);
    expect(long.detail[0].msg).toContain(`the range holds ${2 * ref.bars.length} stored 1d bars`);
  });
});
