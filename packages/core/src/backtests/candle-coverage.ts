import type { CandleBatch } from "../candles/candle-batch";
import { Buckets, type StoredPeriod } from "../candles/buckets";
import { TradeSessionCode } from "../market/trade-session";
import { DomainError, ValidationError } from "../errors";
import { Imports } from "../imports/index";
import { Calendar } from "../market/calendar";
import { marketOf } from "../market/market";
import { dayNumberOf, isoDateOf, utcToZoned } from "../market/zoned-time";
import type { Timeframe } from "../strategies/definition";
import type { BacktestDeps } from "./backtest-model";

/**
 * What prepare (and a sweep's plan) looks at before a run: which trading days of a feed's
 * candles are missing, starting their imports, and how many bars the window holds.
 */

const INTRADAY = TradeSessionCode.Intraday;

/**
 * What is stored of one feed, from one read: the trading days of `history` (the window, or from
 * the warm-up's first day) without a regular-session candle, and how many regular-session bars lie
 * inside `window` (what the chunks will feed).
 */
async function coverage(
  deps: BacktestDeps,
  symbol: string,
  period: StoredPeriod,
  history: [number, number],
  window: [number, number],
): Promise<{ missing: string[]; bars: number }> {
  const calendar = Calendar.for(marketOf(symbol));
  // The window is inside the calendar (a start checks it); a warm-up reaching before the calendar's tables looks from their first day.
  const first = isoDateOf(Math.max(calendar.firstDay, dayNumberOf(calendar.localDateOf(history[0] * 1000))));
  const last = calendar.localDateOf(history[1] * 1000);
  let days: string[];
  try {
    days = calendar.tradingDays(first, last);
  } catch (error) {
    if (error instanceof DomainError) throw new ValidationError([{ loc: ["body", "start_date"], msg: error.message, type: "value_error" }]);
    throw error;
  }
  const covered = new Set<number>();
  let bars = 0;
  const count = (batch: CandleBatch) => {
    for (let i = 0; i < batch.length; i++) {
      if (batch.session[i] !== INTRADAY) continue;
      const ts = batch.timestamp[i]!;
      covered.add(utcToZoned(calendar.timeZone, ts * 1000).dayNumber);
      if (ts >= window[0] && ts <= window[1]) bars++;
    }
  };
  if (period === "1m" || period === "5m") {
    // Day buckets: the US and HK regular sessions fall within one UTC date, their bucket's, so the
    // buckets' session counts answer without reading a candle; only a bucket the window's edge
    // cuts is read, to count its bars inside the window.
    const buckets = Buckets.between(period, history[0], history[1]);
    const summaries = await deps.candles.summaries(symbol, period, [buckets[0]!, buckets[buckets.length - 1]!]);
    const edges: string[] = [];
    for (const summary of summaries) {
      const regular = summary.sessions.Intraday ?? 0;
      if (regular > 0) covered.add(dayNumberOf(summary.bucket));
      const [start, end] = Buckets.range(period, summary.bucket);
      if (start >= window[0] && end - 1 <= window[1]) bars += regular;
      else if (regular > 0 && end > window[0] && start <= window[1]) edges.push(summary.bucket);
    }
    const loaded = await deps.candles.load(symbol, period, edges);
    for (const batch of loaded.values()) {
      for (let i = 0; i < batch.length; i++) if (batch.session[i] === INTRADAY && batch.timestamp[i]! >= window[0] && batch.timestamp[i]! <= window[1]) bars++;
    }
  } else {
    // Month and year buckets reach past the window: their candles are read and counted one by one.
    const loaded = await deps.candles.load(symbol, period, Buckets.between(period, history[0], history[1]));
    for (const batch of loaded.values()) count(batch);
  }
  return { missing: days.filter((day) => !covered.has(dayNumberOf(day))), bars };
}

/**
 * Starts the imports of what is missing of each feed's candles from its `from` (the window's
 * start, or the warm-up's first day) to the window's end, through the import worker (stored
 * candles kept): the tasks started, `busy` when another import of a symbol runs (look again
 * later), and the regular-session bars inside `window` of these feeds and of `counted` (feeds
 * only counted, not looked at for gaps). A feed with `fed: false` (a benchmark's candles, which
 * the run reads but never feeds its strategies) is imported and not counted.
 */
export async function importMissing(
  deps: BacktestDeps,
  userId: string,
  feeds: { symbol: string; timeframe: Timeframe; from: number; fed?: false }[],
  window: [number, number],
  counted: { symbol: string; timeframe: Timeframe }[] = [],
): Promise<{ started: string[]; busy: boolean; bars: number }> {
  const started: string[] = [];
  let bars = 0;
  for (const feed of counted) bars += (await coverage(deps, feed.symbol, feed.timeframe, window, window)).bars;
  for (const feed of feeds) {
    const { missing, bars: inWindow } = await coverage(deps, feed.symbol, feed.timeframe, [feed.from, window[1]], window);
    if (feed.fed !== false) bars += inWindow;
    if (missing.length === 0) continue;
    try {
      const task = await Imports.start(
        deps.imports,
        { id: userId, user_type: "user" },
        {
          symbol: feed.symbol,
          start_date: missing[0],
          end_date: missing[missing.length - 1],
          periods: [feed.timeframe],
          timezone: Calendar.for(marketOf(feed.symbol)).timeZone,
        },
        { keepExisting: true },
      );
      started.push(task.task_id);
    } catch (error) {
      // Someone else's import of the symbol is running: wait for it, then look again.
      if (error instanceof DomainError && error.code === "IMPORT_ALREADY_RUNNING") return { started, busy: true, bars };
      throw error;
    }
  }
  return { started, busy: false, bars };
}

/** Whether these import tasks have ended (a failed one fails the backtest or sweep: 502 BACKTEST_IMPORT_FAILED). */
export async function importsDone(deps: BacktestDeps, taskIds: string[]): Promise<boolean> {
  for (const taskId of taskIds) {
    const task = await deps.imports.tasks.get(taskId);
    if (task && (task.status === "pending" || task.status === "running")) return false;
    if (task && task.status !== "completed")
      throw new DomainError(502, "BACKTEST_IMPORT_FAILED", `Import ${taskId} of missing candles ${task.status}: ${task.message}`);
  }
  return true;
}
