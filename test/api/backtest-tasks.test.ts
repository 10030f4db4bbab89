import { beforeAll, describe, expect, it } from "vitest";
import { Backtests } from "../../packages/core/src/backtests/index";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { EXIT_VARIANTS, exitCase, referenceCase, REFERENCE_SYMBOLS, REFERENCE_RISK } from "../../packages/core/src/engine/testing/reference";
import type { WorkflowInput } from "../../packages/core/src/workflows";
import { Dec } from "../../packages/core/src/money/decimal";
import { createTestApi, type TestApi } from "../support/harness";
import { intradayBars, storeBars } from "../support/stored-bars";
import { expectSameResults } from "../support/backtest-results";
import type { CandleStore } from "../../packages/core/src/candles/index";
import { Calendar } from "../../packages/core/src/market/calendar";
import { barCloseIn, TradingEngine } from "../../packages/core/src/engine/engine";
import type { BarColumns } from "../../packages/core/src/strategies/strategy";

/**
 * The backtest tasks against DynamoDB Local, driven by hand (the state machine's order:
 * prepare, run chunks, finalize), on the reference fixtures' bars stored in the candle store.
 */
let api: TestApi;
let user: { id: string; token: string };
const started: { name: string; input: WorkflowInput }[] = [];

beforeAll(async () => {
  api = await createTestApi({}, { workflows: { start: async (_workflow, name, input) => void started.push({ name, input }) } });
  user = await api.createUser();
  for (const symbol of REFERENCE_SYMBOLS) {
    const ref = referenceCase(symbol);
    const batch = CandleBatches.fromCandles(
      ref.bars.map((b) => ({
        timestamp: b.timestamp / 1000,
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
        volume: b.volume,
        turnover: 0,
        trade_session: "Intraday" as const,
      })),
    );
    await api.services.candles.upsert(symbol, "1d", batch);
  }
});

/** Risk rules under which the reference runs trade as they did (the default preset with its position, per-trade loss, drawdown and daily loss limits out of the way). */

async function startBacktest(symbol: string, overrides: Record<string, unknown> = {}, risk: Record<string, unknown> | null = REFERENCE_RISK) {
  const ref = referenceCase(symbol as "AAPL.US");
  const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
    token: user.token,
    body: { session_name: `ref ${symbol}`, trading_mode: "backtest", asset_mode: "simulated", initial_capital: ref.rules.initial_cash, config: {} },
  });
  const first = new Date(ref.bars[0].timestamp + 86_400_000 / 2).toISOString().slice(0, 10);
  const last = new Date(ref.bars[ref.bars.length - 1].timestamp + 86_400_000 / 2).toISOString().slice(0, 10);
  const response = await api.json("POST", "/api/v1/backtest/start", 200, {
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
        // The reference rules hold 95 % of equity in one symbol: over the session's default risk configuration.
        risk_config: risk,
      },
      symbols: [symbol],
      start_date: first,
      end_date: last,
      initial_capital: ref.rules.initial_cash,
      ...overrides,
    },
  });
  return { session, backtestId: response.backtest_id as string, ref };
}

/** The candle store, running `hook` inside each load before it answers (a request arriving while a chunk reads). */
function pausingOnFirstLoad(store: CandleStore, hook: () => Promise<void>, spacedMs = 0): CandleStore {
  let calls = 0;
  return Object.assign(Object.create(store) as CandleStore, {
    loadBetween: async (...args: Parameters<CandleStore["loadBetween"]>) => {
      // A slow store, when asked: the k-th read answers k × `spacedMs` later (the feed reads ahead, all at once).
      const delay = calls++ * spacedMs;
      const loaded = await store.loadBetween(...args);
      await hook();
      await new Promise((resolve) => setTimeout(resolve, delay));
      return loaded;
    },
  });
}

/**
 * The regular session's minutes of a daily bar (timestamps in seconds): a path from its open to
 * its high and its low (the high first, or the low first), then to its close, each minute from
 * one point of the path to the next.
 */
function minutePath(day: { timestamp: number; open: number; high: number; low: number; close: number }, calendar: Calendar, highFirst: boolean) {
  const date = new Date(day.timestamp + 43_200_000).toISOString().slice(0, 10);
  const session = calendar.sessionsOf(date).find((s) => s.session === "Intraday")!;
  const count = (session.end - session.start) / 60_000;
  const [first, second] = highFirst ? [day.high, day.low] : [day.low, day.high];
  const knots: [number, number][] = [
    [0, day.open],
    [Math.floor(count / 3), first],
    [Math.floor((2 * count) / 3), second],
    [count, day.close],
  ];
  const at = (k: number) => {
    const i = knots.findIndex(([x], j) => j > 0 && k <= x);
    const [x0, y0] = knots[i - 1]!;
    const [x1, y1] = knots[i]!;
    return y0 + ((y1 - y0) * (k - x0)) / (x1 - x0);
  };
  return Array.from({ length: count }, (_, k) => {
    const open = at(k);
    const close = at(k + 1);
    return { timestamp: (session.start + k * 60_000) / 1000, open, high: Math.max(open, close), low: Math.min(open, close), close, volume: 1000 };
  });
}

/** The first `count` US trading days from `first`. */
const tradingDays = (first: string, count: number): string[] =>
  Calendar.for("US")
    .tradingDays(first, `${Number(first.slice(0, 4)) + 1}-12-31`)
    .slice(0, count);

/** Whether the last `runToEnd` found the result recorded by its last chunk, before finalize. */
let lastRecordedByChunk = false;

/** Runs the machine's loop by hand: prepare, chunks of `chunkBars`, finalize. */
async function runToEnd(backtestId: string, chunkBars: number) {
  const deps = api.services.trading.backtests;
  let step = await Backtests.prepare(deps, { backtest_id: backtestId });
  expect(step.status).toBe("running");
  let chunks = 0;
  while (step.status === "running") {
    step = await Backtests.runChunk(deps, { backtest_id: backtestId }, Date.now() + 60_000, chunkBars);
    chunks++;
  }
  expect(step.status).toBe("done");
  // A last chunk that fed bars recorded the result from the engine it ran: finalize leaves it as it is.
  const recorded = await deps.backtests.get(backtestId);
  await Backtests.finalize(deps, { backtest_id: backtestId });
  if (recorded?.result) expect(await deps.backtests.get(backtestId)).toEqual(recorded);
  lastRecordedByChunk = recorded?.status === "completed";
  return chunks;
}

describe("backtest tasks", () => {
  for (const symbol of REFERENCE_SYMBOLS) {
    it(`reproduce the reference fills and final value of ${symbol} through the candle store, in chunks`, async () => {
      const { backtestId, session, ref } = await startBacktest(symbol);
      expect(started.at(-1)).toEqual({ name: `${backtestId}-1`, input: { backtest_id: backtestId } });
      const chunks = await runToEnd(backtestId, 97);
      expect(chunks).toBeGreaterThan(10);
      expect(lastRecordedByChunk).toBe(true);
      const result = await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token });
      expect(result.fills).toHaveLength(ref.fills.length);
      ref.fills.forEach((fill, i) => {
        expect(result.fills[i]).toMatchObject({ side: fill.side, quantity: String(fill.quantity), timestamp: new Date(fill.timestamp * 1000).toISOString() });
        expect(Math.abs(Number(result.fills[i].price) - fill.price)).toBeLessThan(1e-6);
        expect(Math.abs(Number(result.fills[i].commission) - fill.commission)).toBeLessThan(1e-6);
      });
      const currency = Object.keys(result.final_value_by_currency)[0];
      expect(Math.abs(Number(result.final_value_by_currency[currency]) - ref.final_value)).toBeLessThan(1e-6);
      expect(result.final_capital_by_currency[currency]).toBe(new Dec(result.final_value_by_currency[currency]).toFixed(2));
      expect(Math.abs(Number(result.performance_metrics.fees_paid) - ref.total_commission)).toBeLessThan(0.005);
      expect(result.trades.length).toBe(Math.floor(ref.fills.length / 2));
      const after = await api.json("GET", `/api/v1/trading/sessions/${session.id}`, 200, { token: user.token });
      expect(after).toMatchObject({ status: "completed", final_capital: result.final_capital });
      expect(after.performance_metrics.total_trades).toBe(result.trades.length);
      const progress = await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token });
      expect(progress).toMatchObject({ progress: 100, status: "completed", is_running: false, bars_processed: ref.bars.length });
      const orders = await api.json("GET", `/api/v1/trading/sessions/${session.id}/orders?status=filled&limit=500`, 200, { token: user.token });
      expect(orders.orders).toHaveLength(ref.fills.length);
    });
  }

  for (const symbol of REFERENCE_SYMBOLS) {
    for (const variant of EXIT_VARIANTS) {
      it(`reproduce the protective-exit fixture ${symbol} (${variant}) through the candle store, in chunks that snapshot mid-position`, async () => {
        const ref = exitCase(symbol, variant);
        const { stop_loss_pct, take_profit_pct, trailing_stop_pct } = ref.rules;
        const { backtestId } = await startBacktest(symbol, {}, { ...REFERENCE_RISK, stop_loss_pct, take_profit_pct, trailing_stop_pct });
        await runToEnd(backtestId, 61);
        const result = await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token });
        expect(result.risk_config).toMatchObject({ stop_loss_pct, take_profit_pct, trailing_stop_pct });
        expect(result.fills).toHaveLength(ref.fills.length);
        ref.fills.forEach((fill, i) => {
          const got = result.fills[i];
          expect(got).toMatchObject({
            side: fill.side,
            quantity: String(fill.quantity),
            timestamp: new Date(fill.timestamp * 1000).toISOString(),
            order_type: fill.order_type,
            exit_reason: fill.exit_reason === "crossover" ? null : fill.exit_reason,
          });
          expect(Math.abs(Number(got.price) - fill.price)).toBeLessThan(1e-6);
          expect(Math.abs(Number(got.commission) - fill.commission)).toBeLessThan(1e-6);
          if (fill.trigger_price !== undefined) expect(Math.abs(Number(got.trigger_price) - fill.trigger_price)).toBeLessThan(1e-6);
        });
        const reasons = { stop_loss: 0, take_profit: 0, trailing_stop: 0, crossover: 0 };
        for (const trade of result.trades) reasons[trade.exit_reason === "signal" ? "crossover" : (trade.exit_reason as keyof typeof reasons)] += 1;
        const { open_at_end: _open, ...closed } = ref.exit_counts;
        expect(reasons).toEqual(closed);
        const currency = Object.keys(result.final_value_by_currency)[0];
        expect(Math.abs(Number(result.final_value_by_currency[currency]) - ref.final_value)).toBeLessThan(1e-6);
      });
    }
  }

  it("runs without any risk rules when strategy_config.risk_config is null: the plain reference fills, and the result says none applied", async () => {
    const { backtestId, ref } = await startBacktest("AAPL.US", {}, null);
    await runToEnd(backtestId, 500);
    const result = await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token });
    expect(result.risk_config).toBeNull();
    expect(result.fills.map((f: { side: string; quantity: string }) => [f.side, Number(f.quantity)])).toEqual(ref.fills.map((f) => [f.side, f.quantity]));
    expect(Math.abs(Number(Object.values(result.final_value_by_currency)[0]) - ref.final_value)).toBeLessThan(1e-6);
  });

  it("carries warnings: the orders denied by reason with their counts, and the optimistic assumptions it ran under", async () => {
    // A 5 % drawdown halts the channel's entries for good: every later entry is denied CHANNEL_HALTED.
    const { backtestId } = await startBacktest("AAPL.US", {
      strategy_config: {
        fast_period: 10,
        slow_period: 30,
        execution: { commission: { model: "percent", rate: 0 }, sizing: { model: "cash_fraction", fraction: 0.95 }, fill: "close" },
        risk_config: { ...REFERENCE_RISK, max_drawdown: 0.05 },
      },
    });
    await runToEnd(backtestId, 500);
    const result = await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token });
    const denied = result.performance_metrics.denied_orders;
    expect(denied).toBeGreaterThan(5);
    expect(result.warnings).toEqual([
      {
        code: "ORDERS_DENIED",
        reason: "CHANNEL_HALTED",
        count: denied,
        message: `${denied} orders denied CHANNEL_HALTED by the pre-trade checks, so not placed (the first: channel main is halted by its drawdown limit)`,
      },
      { code: "NO_SLIPPAGE", message: expect.stringContaining("execution.slippage_bps 0") },
      { code: "NO_FEES", message: expect.stringContaining("execution.commission percent at rate 0") },
      { code: "FILLS_AT_SIGNAL_CLOSE", message: expect.stringContaining('execution.fill "close"') },
    ]);
    // The figures a trader reads: money to the cent, prices to at most 4 decimals.
    for (const point of result.equity_curve) expect(point.equity).toMatch(/^-?\d+\.\d{2}$/);
    for (const field of ["initial_equity", "final_equity", "fees_paid", "realized_pnl", "unrealized_pnl", "total_pnl"])
      expect(result.performance_metrics[field]).toMatch(/^-?\d+\.\d{2}$/);
    expect(result.final_capital).toMatch(/^-?\d+\.\d{2}$/);
    for (const trade of result.trades) for (const price of [trade.entry_price, trade.exit_price]) expect(price).toMatch(/^\d+(\.\d{1,4})?$/);
    // Realistic execution, no denials: no warnings.
    const { backtestId: plain } = await startBacktest("AAPL.US", {
      strategy_config: {
        fast_period: 10,
        slow_period: 30,
        execution: { commission: { model: "broker" }, sizing: { model: "cash_fraction", fraction: 0.95 }, slippage_bps: 5 },
        risk_config: REFERENCE_RISK,
      },
    });
    await runToEnd(plain, 500);
    expect((await api.json("GET", `/api/v1/backtest/${plain}/result`, 200, { token: user.token })).warnings).toEqual([]);
  });

  it("fills daily bars from the stored minutes inside them under execution.intrabar, in chunks, as the engine fed directly; counts the days without minutes", async () => {
    const ref = exitCase("AAPL.US", "b");
    const { stop_loss_pct, take_profit_pct, trailing_stop_pct } = ref.rules;
    const risk = { ...REFERENCE_RISK, stop_loss_pct, take_profit_pct, trailing_stop_pct };
    // Minutes inside the first 160 days only (three exits): high before low on even days, low before high on odd ones.
    const calendar = Calendar.for("US");
    const stored = ref.bars.slice(0, 160);
    const minutes = stored.flatMap((day, d) => minutePath(day, calendar, d % 2 === 0));
    await api.services.candles.upsert(
      "AAPL.US",
      "1m",
      CandleBatches.fromCandles(minutes.map((m) => ({ ...m, turnover: 0, trade_session: "Intraday" as const }))),
    );
    const execution = {
      commission: { model: "percent", rate: ref.rules.commission_rate },
      sizing: { model: "cash_fraction", fraction: ref.rules.allocation },
      fill: "next_open",
    };
    const strategyConfig = (intrabar: boolean) => ({
      strategy_config: {
        fast_period: ref.rules.fast,
        slow_period: ref.rules.slow,
        execution: { ...execution, ...(intrabar ? { intrabar: "1m" } : {}) },
        risk_config: risk,
      },
    });
    const { backtestId } = await startBacktest("AAPL.US", strategyConfig(true), risk);
    await runToEnd(backtestId, 37);
    const result = await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token });

    // The engine fed the same daily bars one by one, every minute handed over at once, stamped as the backtest stamps its bars.
    const run = await api.services.trading.backtests.runs.get(backtestId);
    const engine = new TradingEngine(run!.setup);
    engine.useMinutes("AAPL.US", {
      symbol: "AAPL.US",
      msPerUnit: 1000,
      ...Object.fromEntries((["timestamp", "open", "high", "low", "close", "volume"] as const).map((k) => [k, Float64Array.from(minutes, (m) => m[k])])),
    } as BarColumns);
    const memo = { day: Number.NaN, close: 0 };
    for (const bar of ref.bars) engine.onBar({ ...bar, symbol: "AAPL.US" }, "1d", barCloseIn("US", bar.timestamp, "1d", memo));
    engine.reportIntrabar();
    engine.endDay();
    const events = engine.drainEvents();
    const expected = events.filter((e) => e.type === "order_filled");
    expect(result.fills.map((f: { timestamp: string; price: string; exit_reason: string | null }) => [f.timestamp, Number(f.price), f.exit_reason])).toEqual(
      expected.map((e) => [new Date(e.time).toISOString(), Number(Number(e.data.price).toFixed(4)), e.data.exit_reason ?? null]),
    );
    const missing = events.reduce((sum, e) => sum + ((e.data.intrabar as { bars_without_minutes: number } | undefined)?.bars_without_minutes ?? 0), 0);
    expect(missing).toBeGreaterThan(10);
    expect(result.warnings.find((w: { code: string }) => w.code === "INTRABAR_MINUTES_MISSING")).toEqual({
      code: "INTRABAR_MINUTES_MISSING",
      count: missing,
      message: expect.stringContaining(`${missing} bars with orders waiting had no stored 1-minute bars inside`),
    });
    // Exits in the days with minutes fill at the minute that reached them; those after, at the daily bar's time, as without intrabar.
    const lastStored = stored.at(-1)!.timestamp + 86_400_000;
    const exits = result.fills.filter((f: { exit_reason: string | null }) => f.exit_reason !== null);
    const inMinutes = exits.filter((f: { timestamp: string }) => Date.parse(f.timestamp) < lastStored);
    expect(inMinutes.length).toBeGreaterThan(0);
    for (const fill of inMinutes) expect(minutes.some((m) => m.timestamp * 1000 === Date.parse(fill.timestamp))).toBe(true);
    const { backtestId: coarseId } = await startBacktest("AAPL.US", strategyConfig(false), risk);
    await runToEnd(coarseId, 500);
    const coarse = await api.json("GET", `/api/v1/backtest/${coarseId}/result`, 200, { token: user.token });
    const after = (fills: { timestamp: string }[]) => fills.filter((f) => Date.parse(f.timestamp) >= lastStored + 40 * 86_400_000);
    expect(coarse.fills.map((f: { timestamp: string }) => f.timestamp)).not.toEqual(result.fills.map((f: { timestamp: string }) => f.timestamp));
    expect(coarse.warnings.map((w: { code: string }) => w.code)).not.toContain("INTRABAR_MINUTES_MISSING");
    expect(after(result.fills).length).toBeGreaterThan(0);
  }, 60_000);

  it("keeps a pause asked for while Prepare starts the imports: progress says pausing, then paused", async () => {
    const deps = api.services.trading.backtests;
    // A symbol without stored candles: Prepare imports them.
    const { backtestId, session } = await startBacktest("AAPL.US", { symbols: ["NVDA.US"] });
    let asked: Promise<unknown> | undefined;
    // The pause arrives while Prepare looks for missing candles, after it read the backtest.
    const racing = {
      ...deps,
      candles: new Proxy(deps.candles, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (name !== "load" || typeof value !== "function") return value;
          return async (...args: unknown[]) => {
            asked ??= api.json("POST", `/api/v1/backtest/${backtestId}/pause`, 200, { token: user.token });
            await asked;
            return value.apply(target, args);
          };
        },
      }),
    };
    expect((await Backtests.prepare(racing, { backtest_id: backtestId })).status).toBe("importing");
    expect(await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token })).toMatchObject({
      status: "pausing",
      is_paused: true,
      is_running: false,
    });
    expect((await Backtests.prepare(deps, { backtest_id: backtestId })).status).toBe("paused");
    expect(await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token })).toMatchObject({ status: "paused", is_paused: true });
    // The session shows the strategy its backtest ran, not the "none" of its empty configuration.
    expect((await api.json("GET", `/api/v1/trading/sessions/${session.id}`, 200, { token: user.token })).strategy_name).toBe("ma_crossover");
  });

  it("pauses at a checkpoint and resumes with a new execution to the same result", async () => {
    const deps = api.services.trading.backtests;
    const { backtestId, ref } = await startBacktest("AAPL.US");
    expect((await Backtests.prepare(deps, { backtest_id: backtestId })).status).toBe("running");
    await Backtests.runChunk(deps, { backtest_id: backtestId }, Date.now() + 60_000, 300);
    const paused = await api.json("POST", `/api/v1/backtest/${backtestId}/pause`, 200, { token: user.token });
    expect(paused.status).toBe("pausing");
    expect((await Backtests.runChunk(deps, { backtest_id: backtestId }, Date.now() + 60_000, 300)).status).toBe("paused");
    const progress = await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token });
    expect(progress).toMatchObject({ is_paused: true, is_running: false, status: "paused" });
    expect(progress.progress).toBeGreaterThan(0);
    expect(progress.progress).toBeLessThan(100);
    await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 409, { token: user.token });
    const resumed = await api.json("POST", `/api/v1/backtest/${backtestId}/resume`, 200, { token: user.token });
    expect(resumed.status).toBe("queued");
    expect(started.at(-1)!.name).toBe(`${backtestId}-2`);
    await runToEnd(backtestId, 300);
    const result = await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token });
    expect(result.fills.map((f: { quantity: string }) => Number(f.quantity))).toEqual(ref.fills.map((f) => f.quantity));
    await api.json("POST", `/api/v1/backtest/${backtestId}/resume`, 409, { token: user.token });
  });

  it("honours a pause asked while the one chunk of a small backtest runs: paused at its checkpoint, resumed to the unpaused result", async () => {
    const { backtestId, ref } = await startBacktest("AAPL.US");
    // The pause arrives while the chunk reads its candles (one read holds all of these daily bars).
    let asked = false;
    const deps = {
      ...api.services.trading.backtests,
      candles: pausingOnFirstLoad(api.services.trading.backtests.candles, async () => {
        if (asked) return;
        asked = true;
        expect((await api.json("POST", `/api/v1/backtest/${backtestId}/pause`, 200, { token: user.token })).status).toBe("pausing");
      }),
    };
    expect((await Backtests.prepare(api.services.trading.backtests, { backtest_id: backtestId })).status).toBe("running");
    expect((await Backtests.runChunk(deps, { backtest_id: backtestId }, Date.now() + 60_000)).status).toBe("paused");
    expect(asked).toBe(true);
    const paused = await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token });
    expect(paused).toMatchObject({ status: "paused", is_paused: true, is_running: false, bars_processed: ref.bars.length, bars_total: ref.bars.length });
    expect(paused.progress).toBeLessThan(100);
    await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 409, { token: user.token });
    expect((await api.json("POST", `/api/v1/backtest/${backtestId}/resume`, 200, { token: user.token })).status).toBe("queued");
    expect(await runToEnd(backtestId, 1_000_000)).toBe(1);
    expect((await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token })).status).toBe("completed");
    const unpaused = await startBacktest("AAPL.US");
    await runToEnd(unpaused.backtestId, 1_000_000);
    await expectSameResults(api, user.token, [backtestId, unpaused.backtestId]);
  });

  it("ends paused, never completed, when a pause is accepted after the last chunk's look at its flags and before its result is recorded; a resume finalises it", async () => {
    const deps = api.services.trading.backtests;
    const { backtestId, ref } = await startBacktest("AAPL.US");
    expect((await Backtests.prepare(deps, { backtest_id: backtestId })).status).toBe("running");
    // The pause arrives while the chunk, its last bar fed and saved, reads the backtest to look at its flags: that read answers without it.
    let accepted: { status: string } | undefined;
    const racing = {
      ...deps,
      backtests: Object.assign(Object.create(deps.backtests) as typeof deps.backtests, {
        get: async (id: string) => {
          const before = await deps.backtests.get(id);
          if (accepted === undefined && (await deps.runs.progress(id))?.done) {
            accepted = await api.json("POST", `/api/v1/backtest/${backtestId}/pause`, 200, { token: user.token });
          }
          return before;
        },
      }),
    };
    expect((await Backtests.runChunk(racing, { backtest_id: backtestId }, Date.now() + 60_000, 1_000_000)).status).toBe("paused");
    expect(accepted?.status).toBe("pausing");
    expect(await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token })).toMatchObject({
      status: "paused",
      is_paused: true,
      bars_processed: ref.bars.length,
    });
    await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 409, { token: user.token });
    // Finalize run again meanwhile (a retried task) keeps it paused too.
    expect((await Backtests.finalize(deps, { backtest_id: backtestId })).status).toBe("paused");
    expect((await api.json("POST", `/api/v1/backtest/${backtestId}/resume`, 200, { token: user.token })).status).toBe("queued");
    expect(await runToEnd(backtestId, 1_000_000)).toBe(1);
    const unpaused = await startBacktest("AAPL.US");
    await runToEnd(unpaused.backtestId, 1_000_000);
    await expectSameResults(api, user.token, [backtestId, unpaused.backtestId]);
  });

  it("stops a long chunk soon after a pause arrives (its flags looked at as windows are taken up), and resumes it to the uninterrupted result", async () => {
    const days = tradingDays("2024-01-02", 180);
    const { fine } = intradayBars("QQQ.US", days, 11);
    await storeBars(api.services, "5m", fine);
    const request = {
      symbols: ["QQQ.US"],
      start_date: days[0],
      end_date: days.at(-1),
      strategy_config: { fast_period: 10, slow_period: 30, execution: { timeframe: "5m" } },
    };
    const { backtestId } = await startBacktest("AAPL.US", request);
    let loads = 0;
    const deps = {
      ...api.services.trading.backtests,
      // Windows arriving 150 ms apart: the look started as the first is taken up answers long before the half.
      candles: pausingOnFirstLoad(
        api.services.trading.backtests.candles,
        async () => {
          if (loads++ === 0) await api.json("POST", `/api/v1/backtest/${backtestId}/pause`, 200, { token: user.token });
        },
        150,
      ),
    };
    expect((await Backtests.prepare(api.services.trading.backtests, { backtest_id: backtestId })).status).toBe("running");
    expect((await Backtests.runChunk(deps, { backtest_id: backtestId }, Date.now() + 60_000, 1_000_000)).status).toBe("paused");
    const paused = await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token });
    expect(paused.bars_total).toBe(fine.length);
    expect(paused.bars_processed).toBeGreaterThan(0);
    expect(paused.bars_processed).toBeLessThan(fine.length / 2);
    await api.json("POST", `/api/v1/backtest/${backtestId}/resume`, 200, { token: user.token });
    await runToEnd(backtestId, 1_000_000);
    const whole = await startBacktest("AAPL.US", request);
    await runToEnd(whole.backtestId, 1_000_000);
    await expectSameResults(api, user.token, [backtestId, whole.backtestId]);
    expect((await api.json("GET", `/api/v1/backtest/${backtestId}/result`, 200, { token: user.token })).bars_processed).toBe(fine.length);
  });

  it("counts only the window's bars in bars_total, so a daily backtest inside a year ends with every counted bar processed", async () => {
    const ref = referenceCase("AAPL.US");
    const day = (ms: number) => new Date(ms + 43_200_000).toISOString().slice(0, 10);
    // Daily candles are stored one item per year: the window starts and ends inside those buckets.
    const { backtestId } = await startBacktest("AAPL.US", { start_date: day(ref.bars[7]!.timestamp), end_date: day(ref.bars.at(-6)!.timestamp) });
    await runToEnd(backtestId, 1_000_000);
    const progress = await api.json("GET", `/api/v1/backtest/${backtestId}/progress`, 200, { token: user.token });
    expect(progress).toMatchObject({ status: "completed", progress: 100, bars_processed: ref.bars.length - 12, bars_total: ref.bars.length - 12 });
  });

  it("answers 422 for a bad request and 404/403 for unknown or foreign backtests", async () => {
    const bad = await api.json("POST", "/api/v1/backtest/start", 422, {
      token: user.token,
      body: {
        session_id: "x",
        strategy_name: "ma_crossover",
        strategy_config: {},
        symbols: [],
        start_date: "2024-02-30",
        end_date: "2024-01-01",
        initial_capital: -1,
      },
    });
    expect(bad.detail.map((d: { loc: string[] }) => d.loc.join("."))).toEqual(
      expect.arrayContaining(["body.symbols", "body.start_date", "body.initial_capital"]),
    );
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: user.token,
      body: { session_name: "unknown strategy", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
    });
    const unknown = await api.json("POST", "/api/v1/backtest/start", 422, {
      token: user.token,
      body: {
        session_id: session.id,
        strategy_name: "ma_cross",
        strategy_config: {},
        symbols: ["AAPL.US"],
        start_date: "2024-01-01",
        end_date: "2024-01-31",
        initial_capital: 1000,
      },
    });
    // Once, at the field the request sent (not also at strategy_config.strategy_name).
    expect(unknown.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["body", "strategy_name"]]);
    expect((await api.json("GET", "/api/v1/backtest/nope/progress", 404, { token: user.token })).error_code).toBe("BACKTEST_NOT_FOUND");
    const { backtestId } = await startBacktest("700.HK");
    const other = await api.createUser();
    expect((await api.json("POST", `/api/v1/backtest/${backtestId}/pause`, 403, { token: other.token })).error_code).toBe("ACCESS_DENIED");
  });
});
