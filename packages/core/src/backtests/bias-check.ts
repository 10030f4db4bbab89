import { Buckets, type StoredPeriod } from "../candles/buckets";
import { CandleBatches, type CandleBatch } from "../candles/candle-batch";
import type { CandleStore } from "../candles/index";
import { TradingEngine } from "../engine/engine";
import type { EngineEvent } from "../engine/events";
import type { EngineSetup } from "../engine/setup";
import { Strategies } from "../strategies/index";
import type { Timeframe } from "../strategies/definition";
import type { Json } from "../strategies/snapshot";
import type { Bar, BarColumns, IndexedSignal, Strategy } from "../strategies/strategy";
import { iso } from "../util/time";
import { closingAtTheClose } from "./backtest-tasks";
import { BarFeed } from "../candles/bar-feed";

/**
 * Bias checks of a strategy over stored candles (docs/backtests.md "Bias checks"), after
 * freqtrade's lookahead and recursive analyses:
 *
 * - **look-ahead**: the strategy and the engine run over the whole range, then again with the
 *   candles cut at several instants (the store itself answers nothing after the cut, so no column
 *   a strategy is handed holds a later bar). Whatever a run decided at a bar up to the cut (a
 *   signal, an order, any value of the strategy's state, its indicators included) must be the same
 *   in both runs: the runs saw the same bars up to there, and the engine is deterministic.
 * - **recursive**: the strategy runs again from several later bars, fresh; after the bars it
 *   declares its indicators need to settle (`settleBars`, at least its warm-up `warmupBars`) they
 *   must agree with the run that had all the history before, within a tolerance. An indicator that
 *   still differs depends on more history than declared (an exponential average, Wilder's
 *   smoothing, declared as a moving window): the live warm-up, which loads that many bars, would
 *   leave it disagreeing with a backtest over the same bars.
 */

/** What a check runs: the strategy, the engine setup it trades in, its feeds (one per symbol, one timeframe) and the window. */
export interface BiasCheckPlan {
  strategy_name: string;
  parameters: Record<string, unknown>;
  setup: EngineSetup;
  symbols: string[];
  timeframe: Timeframe;
  /** The range in UNIX seconds, inclusive. */
  window: [number, number];
  cuts: number;
  starts: number;
  /** Relative to the indicator's mean absolute value over the bars compared. */
  tolerance: number;
  /**
   * Told each symbol's bars in the window once they are read, and the strategy's settle figure,
   * before any run: may refuse them (throw).
   */
  beforeRuns?: (bars: Record<string, number>, settleBars: number) => void;
}

/** A value as the report shows it: NaN and infinities as text, JSON otherwise. */
export type ReportedValue = Json;

/** A difference between the full run and a run cut at `cut_at`, at the first bar it shows. */
export interface LookaheadFinding {
  symbol: string;
  cut_at: string;
  kind: "signal" | "order" | "indicator";
  bar_time: string;
  field: string;
  full_value: ReportedValue;
  cut_value: ReportedValue;
}

/** An indicator that, started fresh at `start_at`, still differs from the full run after the declared settle bars. */
export interface RecursiveFinding {
  symbol: string;
  indicator: string;
  start_at: string;
  first_difference_at: string;
  /** Bars since the start at the first difference (the start's bar is bar 1). */
  bars_after_start: number;
  full_value: number | null;
  value: number | null;
  max_relative_difference: number;
  /** Bars since the start from which every value agrees within the tolerance; null when it still differs at the range's last bar. */
  bars_needed: number | null;
}

export interface BiasCheckFindings {
  warmup_bars: number;
  settle_bars: number;
  bars: Record<string, number>;
  cuts: string[];
  starts: Record<string, string[]>;
  lookahead: { passed: boolean; findings: LookaheadFinding[] };
  recursive: { passed: boolean; findings: RecursiveFinding[] };
  passed: boolean;
}

type Loader = Pick<CandleStore, "loadBetween">;

/** The store's reads, each made once whatever the runs ask again. */
export function cachedLoader(candles: Loader): Loader {
  const reads = new Map<string, Promise<CandleBatch[]>>();
  return {
    loadBetween(code, period, first, last, sessions) {
      const key = `${code}|${period}|${first}|${last}|${sessions ?? "all"}`;
      let read = reads.get(key);
      if (read === undefined) reads.set(key, (read = candles.loadBetween(code, period, first, last, sessions)));
      return read;
    },
  };
}

/** The store as it would be at `cutSec`: no candle opening after it. */
function cutLoader(candles: Loader, cutSec: number): Loader {
  return {
    async loadBetween(code, period, first, last, sessions) {
      const batches = await candles.loadBetween(code, period, first, last, sessions);
      return batches.map((batch) => CandleBatches.filter(batch, (i) => batch.timestamp[i]! <= cutSec)).filter((batch) => batch.length > 0);
    },
  };
}

/** Each symbol's regular-session bars of the window, as the backtest's feed reads them. */
async function barsOf(candles: Loader, plan: BiasCheckPlan): Promise<Map<string, Bar[]>> {
  const out = new Map<string, Bar[]>();
  for (const symbol of plan.symbols) {
    const bars: Bar[] = [];
    await new BarFeed(candles, [{ symbol, timeframe: plan.timeframe }], plan.window[0], plan.window[1], 0).run(Number.MAX_SAFE_INTEGER, (bar) =>
      bars.push({ ...bar }),
    );
    out.set(symbol, bars);
  }
  return out;
}

/** Bars as the strategies' columns (milliseconds). */
export function columnsOf(symbol: string, bars: readonly Bar[]): BarColumns {
  return {
    symbol,
    msPerUnit: 1,
    timestamp: bars.map((b) => b.timestamp),
    open: bars.map((b) => b.open),
    high: bars.map((b) => b.high),
    low: bars.map((b) => b.low),
    close: bars.map((b) => b.close),
    volume: bars.map((b) => b.volume),
  };
}

/** What a strategy held and said after each bar of one symbol. */
interface Trace {
  /** The signals of each bar, as JSON text ("" for none). */
  signals: string[];
  /** The strategy's state of the symbol after each bar, as JSON text. */
  states: string[];
  /** The indicators it reports (`inspect`) after each bar, by name. */
  readings: Map<string, (number | null)[]>;
}

/**
 * Runs a fresh strategy over bars `from` to `columns.length - 1`, one bar at a time through its
 * batch path (`onColumns`, as the backtest's engine feeds it), the columns holding every bar of
 * the run: a strategy that reads past the bar it is handed finds the later bars there.
 */
function trace(create: () => Strategy, columns: BarColumns, from: number, keepStates: boolean): Trace {
  const strategy = create();
  const out: IndexedSignal[] = [];
  const result: Trace = { signals: [], states: [], readings: new Map() };
  const length = columns.timestamp.length;
  for (let i = from; i < length; i++) {
    out.length = 0;
    strategy.onColumns(columns, i, i + 1, out);
    result.signals.push(out.length === 0 ? "" : JSON.stringify(out.map((s) => s.signal)));
    if (keepStates) result.states.push(JSON.stringify(strategy.saveState().symbols[columns.symbol] ?? null));
    const indicators = strategy.inspect?.(columns.symbol).indicators ?? {};
    for (const [name, value] of Object.entries(indicators)) {
      let series = result.readings.get(name);
      if (series === undefined) result.readings.set(name, (series = new Array<number | null>(i - from).fill(null)));
      series.push(value);
    }
  }
  return result;
}

/** The first leaf (path and both values) where two JSON values differ. */
function firstDifference(a: Json, b: Json, path = ""): { field: string; a: Json; b: Json } | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  const shown = (value: Json): Json => (value !== null && typeof value === "object" && !Array.isArray(value) && "$num" in value ? value.$num : value);
  const isRecord = (value: Json): value is { [key: string]: Json } =>
    value !== null && typeof value === "object" && !Array.isArray(value) && !("$num" in value);
  if (isRecord(a) && isRecord(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference(a[key] ?? null, b[key] ?? null, path === "" ? key : `${path}.${key}`);
      if (found) return found;
    }
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const found = firstDifference(a[i] ?? null, b[i] ?? null, `${path}[${i}]`);
      if (found) return found;
    }
  }
  return { field: path === "" ? "value" : path.replace(/\.\$typed\[/g, "["), a: shown(a), b: shown(b) };
}

/** The engine's order events of a run over `candles` up to `endSec`. */
async function orderEvents(candles: Loader, plan: BiasCheckPlan, endSec: number): Promise<EngineEvent[]> {
  const engine = new TradingEngine(plan.setup);
  const feeds = plan.symbols.map((symbol) => ({ symbol, timeframe: plan.timeframe }));
  await new BarFeed(candles, feeds, plan.window[0], endSec, 0).run(Number.MAX_SAFE_INTEGER, closingAtTheClose(engine, 0));
  return engine.drainEvents().filter((event) => event.type.startsWith("order_"));
}

/** `count` indexes spread evenly over `[low, high]`, each once. */
export function spread(low: number, high: number, count: number): number[] {
  if (high < low || count < 1) return [];
  const out = new Set<number>();
  for (let k = 1; k <= count; k++) out.add(Math.round(low + ((high - low) * k) / (count + 1)));
  return [...out].filter((i) => i >= low && i <= high);
}

/**
 * Where a recursive check compares a fresh start with the full run: bars from the one where the
 * start's declared settle bars end; the indicator's differences there, relative to its mean absolute value
 * over those bars (a value near zero, a MACD histogram crossing, is not inflated). Null when every
 * bar agrees within `tolerance`.
 */
export function compareSeries(
  full: readonly (number | null)[],
  fresh: readonly (number | null)[],
  from: number,
  tolerance: number,
): { first: number; last: number; max: number } | null {
  let sum = 0;
  let count = 0;
  for (let i = from; i < full.length; i++) {
    const value = full[i];
    if (value !== null && value !== undefined && Number.isFinite(value)) {
      sum += Math.abs(value);
      count++;
    }
  }
  const scale = count > 0 && sum > 0 ? sum / count : 1;
  let first = -1;
  let last = -1;
  let max = 0;
  for (let i = from; i < full.length; i++) {
    const a = full[i] ?? null;
    const b = fresh[i] ?? null;
    if (a === null && b === null) continue;
    const difference = a === null || b === null ? Infinity : Math.abs(a - b) / scale;
    if (difference > tolerance) {
      if (first < 0) first = i;
      last = i;
      if (difference > max) max = difference;
    }
  }
  return first < 0 ? null : { first, last, max };
}

/** Runs both checks of `plan` over the stored candles of `candles`. */
export async function checkBias(candles: Loader, plan: BiasCheckPlan): Promise<BiasCheckFindings> {
  const store = cachedLoader(candles);
  const create = () => Strategies.create(plan.strategy_name, plan.parameters);
  const { warmupBars: warmup, settleBars: settle } = create();
  const bars = await barsOf(store, plan);
  plan.beforeRuns?.(Object.fromEntries([...bars].map(([symbol, list]) => [symbol, list.length])), settle);
  const columns = new Map([...bars].map(([symbol, list]) => [symbol, columnsOf(symbol, list)]));
  const full = new Map([...columns].map(([symbol, c]) => [symbol, trace(create, c, 0, true)]));

  // Look-ahead: cut instants spread over the bars of every symbol, after the warm-up, before the last bar.
  const instants = [...new Set([...bars.values()].flatMap((list) => list.map((b) => b.timestamp)))].sort((a, b) => a - b);
  const cutIndexes = spread(Math.min(warmup, instants.length - 1), instants.length - 2, plan.cuts);
  const lookahead: LookaheadFinding[] = [];
  const fullOrders = await orderEvents(store, plan, plan.window[1]);
  for (const index of cutIndexes) {
    const cutMs = instants[index]!;
    const nextMs = instants[index + 1]!;
    const cutAt = iso(cutMs);
    const cut = cutLoader(store, Math.floor(cutMs / 1000));
    const cutBars = await barsOf(cut, plan);
    for (const symbol of plan.symbols) {
      const kept = cutBars.get(symbol) ?? [];
      const mine = trace(create, columnsOf(symbol, kept), 0, true);
      const theirs = full.get(symbol)!;
      const time = (i: number) => iso(kept[i]!.timestamp);
      const signalAt = mine.signals.findIndex((s, i) => s !== theirs.signals[i]);
      if (signalAt >= 0) {
        lookahead.push({
          symbol,
          cut_at: cutAt,
          kind: "signal",
          bar_time: time(signalAt),
          field: "signals",
          full_value: JSON.parse(theirs.signals[signalAt] || "[]"),
          cut_value: JSON.parse(mine.signals[signalAt] || "[]"),
        });
      }
      const stateAt = mine.states.findIndex((s, i) => s !== theirs.states[i]);
      if (stateAt >= 0) {
        const found = firstDifference(JSON.parse(theirs.states[stateAt]!), JSON.parse(mine.states[stateAt]!))!;
        lookahead.push({ symbol, cut_at: cutAt, kind: "indicator", bar_time: time(stateAt), field: found.field, full_value: found.a, cut_value: found.b });
      }
    }
    // Orders caused by the bars up to the cut are stamped before the next bar opens.
    const before = fullOrders.filter((event) => event.time < nextMs);
    const cutOrders = (await orderEvents(cut, plan, Math.floor(cutMs / 1000))).filter((event) => event.time < nextMs);
    const orderAt = Array.from({ length: Math.max(before.length, cutOrders.length) }, (_, i) => i).find(
      (i) => JSON.stringify(before[i] ?? null) !== JSON.stringify(cutOrders[i] ?? null),
    );
    if (orderAt !== undefined) {
      const a = before[orderAt];
      const b = cutOrders[orderAt];
      const event = (a ?? b)!;
      lookahead.push({
        symbol: String(event.data.symbol ?? (event.data.order as { symbol?: string } | undefined)?.symbol ?? plan.symbols[0]),
        cut_at: cutAt,
        kind: "order",
        bar_time: iso(Math.min(a?.time ?? Infinity, b?.time ?? Infinity)),
        field: event.type,
        full_value: a ? ({ type: a.type, time: iso(a.time), data: a.data } as Json) : null,
        cut_value: b ? ({ type: b.type, time: iso(b.time), data: b.data } as Json) : null,
      });
    }
  }

  // Recursive: fresh starts spread over each symbol's bars, compared once the declared settle bars are behind them.
  const recursive: RecursiveFinding[] = [];
  const starts: Record<string, string[]> = {};
  for (const symbol of plan.symbols) {
    const c = columns.get(symbol)!;
    const length = c.timestamp.length;
    const theirs = full.get(symbol)!;
    const points = spread(1, length - settle - 1, plan.starts);
    starts[symbol] = points.map((s) => iso(c.timestamp[s]!));
    for (const start of points) {
      const mine = trace(create, c, start, false);
      const from = start + Math.max(settle, 1) - 1;
      for (const [name, series] of theirs.readings) {
        const fresh = [...new Array<number | null>(start).fill(null), ...(mine.readings.get(name) ?? [])];
        const compared = compareSeries(series, fresh, from, plan.tolerance);
        if (compared === null) continue;
        recursive.push({
          symbol,
          indicator: name,
          start_at: iso(c.timestamp[start]!),
          first_difference_at: iso(c.timestamp[compared.first]!),
          bars_after_start: compared.first - start + 1,
          full_value: series[compared.first] ?? null,
          value: fresh[compared.first] ?? null,
          max_relative_difference: Number.isFinite(compared.max) ? Number(compared.max.toPrecision(6)) : 1e308,
          bars_needed: compared.last === length - 1 ? null : compared.last - start + 2,
        });
      }
    }
  }
  return {
    warmup_bars: warmup,
    settle_bars: settle,
    bars: Object.fromEntries([...bars].map(([symbol, list]) => [symbol, list.length])),
    cuts: cutIndexes.map((i) => iso(instants[i]!)),
    starts,
    lookahead: { passed: lookahead.length === 0, findings: lookahead },
    recursive: { passed: recursive.length === 0, findings: recursive },
    passed: lookahead.length === 0 && recursive.length === 0,
  };
}

/** An in-memory store of regular-session bars (tests, and a caller holding its bars). */
export function barStore(bars: Record<string, readonly Bar[]>, period: StoredPeriod): Loader {
  return {
    async loadBetween(code, asked, first, last) {
      if (asked !== period) return [];
      const from = Buckets.range(period, first)[0];
      const to = Buckets.range(period, last)[1];
      const list = (bars[code] ?? []).filter((b) => b.timestamp / 1000 >= from && b.timestamp / 1000 < to);
      if (list.length === 0) return [];
      return [CandleBatches.fromCandles(list.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const })))];
    },
  };
}
