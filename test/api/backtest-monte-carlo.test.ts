import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { referenceCase, REFERENCE_RISK } from "../../packages/core/src/engine/testing/reference";
import { backtestHandlers } from "../../packages/functions/src/workflow/backtest";
import { LocalWorkflowRunner } from "../../packages/local/src/workflow-runner";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * Monte Carlo of a finished backtest through the API (docs/backtests.md "Monte Carlo"): the
 * reference fixtures' SMA crossover run by the local workflow runner, then its closed trades
 * reshuffled and bootstrapped.
 */
let api: TestApi;
let runner: LocalWorkflowRunner;
const ref = referenceCase("AAPL.US");
const day = (ms: number) => new Date(ms + 43_200_000).toISOString().slice(0, 10);

beforeAll(async () => {
  runner = new LocalWorkflowRunner({ backtest: () => backtestHandlers(() => Promise.resolve(api.services)) });
  api = await createTestApi({}, { workflows: runner });
  const candles = ref.bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));
  await api.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
});
afterAll(() => runner.stop());

/** A new user's finished reference backtest ending `endDate`. */
async function finishedBacktest(endDate = day(ref.bars.at(-1)!.timestamp)) {
  const user = await api.createUser();
  const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
    token: user.token,
    body: { session_name: "monte carlo", trading_mode: "backtest", asset_mode: "simulated", initial_capital: ref.rules.initial_cash, config: {} },
  });
  const { backtest_id } = await api.json("POST", "/api/v1/backtest/start", 200, {
    token: user.token,
    body: {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: {
        fast_period: ref.rules.fast,
        slow_period: ref.rules.slow,
        execution: {
          commission: { model: "percent", rate: ref.rules.commission_rate },
          sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
          fill: "next_open",
        },
        risk_config: REFERENCE_RISK,
      },
      symbols: ["AAPL.US"],
      start_date: day(ref.bars[0]!.timestamp),
      end_date: endDate,
      initial_capital: ref.rules.initial_cash,
    },
  });
  expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
  const result = await api.json("GET", `/api/v1/backtest/${backtest_id}/result`, 200, { token: user.token });
  return { user, backtest_id: backtest_id as string, result };
}

/** A backtest that ends flat (its last trade closed), so its closed trades make its whole final capital. */
let flat: Awaited<ReturnType<typeof finishedBacktest>>;

beforeAll(async () => {
  const whole = await finishedBacktest();
  flat = whole.result.performance_metrics.unrealized_pnl === "0.00" ? whole : await finishedBacktest(whole.result.trades.at(-1).exit_time.slice(0, 10));
  expect(flat.result.performance_metrics.unrealized_pnl).toBe("0.00");
  expect(flat.result.trades.length).toBeGreaterThan(3);
});

const monteCarlo = (id: string, token: string, body: Record<string, unknown>, status = 200) =>
  api.json("POST", `/api/v1/backtest/${id}/monte-carlo`, status, { token, body });

describe("a Monte Carlo of a finished backtest", () => {
  it("reshuffles the closed trades: every path ends at the backtest's final capital to the cent", async () => {
    const answer = await monteCarlo(flat.backtest_id, flat.user.token, { paths: 2000, seed: 7, method: "reshuffle" });
    const final = flat.result.final_capital;
    expect(answer).toMatchObject({ backtest_id: flat.backtest_id, method: "reshuffle", paths: 2000, seed: 7, trades: flat.result.trades.length });
    expect(answer.initial_equity).toBe(flat.result.performance_metrics.initial_equity);
    expect(answer.trades_final_equity).toBe(final);
    expect(answer.final_equity).toEqual({ p5: final, p25: final, p50: final, p75: final, p95: final });
    expect(answer.total_return.p50).toBeCloseTo(flat.result.performance_metrics.total_return, 6);
    // Only the path differs: the drawdowns spread, and the backtest's own lies among them.
    expect(answer.max_drawdown.p5).toBeLessThanOrEqual(answer.max_drawdown.p95);
    expect(answer.max_drawdown.p95).toBeGreaterThan(answer.max_drawdown.p5);
    expect(answer.max_drawdown_trades.p95).toBeGreaterThanOrEqual(answer.max_drawdown_trades.p5);
    expect(answer.bands.length).toBe(flat.result.trades.length + 1);
    expect(answer.bands[0]).toMatchObject({ trade: 0, date: flat.result.start_date, p5: answer.initial_equity, p95: answer.initial_equity });
    const last = answer.bands.at(-1);
    expect(last.trade).toBe(flat.result.trades.length);
    expect(last.date).toBe(flat.result.trades.at(-1).exit_time.slice(0, 10));
    // The bands hold float32s: within a cent or two of the final capital at this size.
    expect(Math.abs(Number(last.p50) - Number(final))).toBeLessThan(0.05);
    for (const band of answer.bands) {
      expect(Number(band.p5)).toBeLessThanOrEqual(Number(band.p25));
      expect(Number(band.p25)).toBeLessThanOrEqual(Number(band.p50));
      expect(Number(band.p75)).toBeLessThanOrEqual(Number(band.p95));
    }
  });

  it("bootstraps reproducibly for a seed, and names the seed it drew when none is given", async () => {
    const body = { paths: 1500, seed: 123456789, method: "bootstrap" };
    const [a, b] = await Promise.all([monteCarlo(flat.backtest_id, flat.user.token, body), monteCarlo(flat.backtest_id, flat.user.token, body)]);
    expect(b).toEqual(a);
    expect(Number(a.final_equity.p5)).toBeLessThan(Number(a.final_equity.p95));
    const drawn = await monteCarlo(flat.backtest_id, flat.user.token, { method: "bootstrap" });
    expect(drawn.paths).toBe(1000);
    expect(Number.isInteger(drawn.seed)).toBe(true);
    expect(await monteCarlo(flat.backtest_id, flat.user.token, { method: "bootstrap", seed: drawn.seed })).toEqual(drawn);
  });

  it("is the owner's or an administrator's, answers 404 for an unknown backtest and 422 for a bad body listing every problem", async () => {
    const other = await api.createUser();
    await monteCarlo(flat.backtest_id, other.token, {}, 403);
    const admin = await api.adminToken();
    expect((await monteCarlo(flat.backtest_id, admin, { paths: 10, seed: 1 })).paths).toBe(10);
    await monteCarlo("no-such-backtest", flat.user.token, {}, 404);
    const refused = await monteCarlo(flat.backtest_id, flat.user.token, { paths: 100_001, seed: -1, method: "shuffle" }, 422);
    expect(refused.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(["body.paths", "body.seed", "body.method"]);
  });

  it("answers 409 BACKTEST_NOT_FINISHED before the backtest has a result", async () => {
    const user = await api.createUser();
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: user.token,
      body: { session_name: "unfinished", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
    });
    const { backtests } = api.services.trading.backtests;
    const backtest = await backtests.get(flat.backtest_id);
    await backtests.create({ ...backtest!, id: "unfinished-backtest", session_id: session.id, user_id: user.id, status: "running", result: null });
    expect((await monteCarlo("unfinished-backtest", user.token, {}, 409)).error_code).toBe("BACKTEST_NOT_FINISHED");
  });
});
