import { barCloseIn, dayMarketOf, regularCloseOf, type TradingEngine } from "../../engine/engine";
import type { Timeframe } from "../../strategies/definition";
import type { EngineEvent } from "../../engine/events";
import { type Market, Markets } from "../../market/market";
import { isoDateOf, MS_PER_DAY, utcToZoned } from "../../market/zoned-time";
import { TradingCalendar, type TradingCalendarDeps } from "../../trading-calendar/index";
import { liveFeedsOf } from "../session/live-run";
import { engineOf, updateRun } from "../run/update";
import type { StoredRun } from "../run/runs";
import { isActiveOnWorker, type StoredSession } from "../session/sessions";
import type { ViewDeps } from "../session/deps";
import { inParallel } from "../../util/in-parallel";

/**
 * The day rollover of simulation and live sessions (ENGINE.md §2 "day end"): after a market's
 * regular session closes, each running or paused session whose engine is still inside that day
 * settles it (`day_end`: the day's closing equity joins the daily figures), its pending day
 * orders expire, and its daily risk counters restart. The engine's own day decides what is due,
 * so the schedule may run at any time and as often as it likes: a session already rolled (or one
 * whose next day's bars have arrived, which rolls it on its own) is left alone. The calendar of
 * each symbol the sessions trade is stored a week ahead.
 */

/** The rollover waits this long after the close: the worker feeds the last bar of the day first. */
export const ROLLOVER_GRACE_MS = 5 * 60_000;
/**
 * When the schedule runs (UTC hours, Monday to Friday, a quarter past): after Hong Kong's close
 * (16:00 HKT = 08:00 UTC) and New York's (16:00 ET = 20:00 UTC in summer, 21:00 in winter). Half
 * days close earlier and are rolled by the next run.
 */
export const ROLLOVER_SCHEDULE = "cron(15 8,20,21 ? * MON-FRI *)";
/** The embedded runtime's timer: what is due is decided by the clock, so a short interval only rolls sooner. */
export const ROLLOVER_LOCAL_INTERVAL_MS = 60_000;
/** Calendar entries kept ahead of the rolled day. */
export const CALENDAR_DAYS_AHEAD = 7;

export interface RolloverDeps {
  sessions: ViewDeps;
  calendar: TradingCalendarDeps;
}

export interface RolledSession {
  session_id: string;
  /** The exchange-local date that was closed. */
  date: string;
  orders_expired: number;
  equity: number;
  events: EngineEvent[];
  /** The session and its engine after the rollover (what the socket's channel updates are read from). */
  session: StoredSession;
  engine: TradingEngine;
}

/** One shard's rollover: the sessions looked at (running or paused simulation and live sessions), those rolled and their symbols. */
export interface ShardRollover {
  sessions: number;
  rolled: RolledSession[];
  symbols: string[];
}

/** The calendars extended, and any that failed (the provider may not list a symbol). */
export interface CalendarRollover {
  calendars: string[];
  calendar_failures: { symbol: string; message: string }[];
}

/** Sessions of one shard rolled side by side (each a read and a conditional write of its run). */
export const ROLL_CONCURRENCY = 8;

/** When local day `dayNumber` of `setup`'s market ends for the rollover: the regular session's close, or midnight on a closed day. */
export function dayCloseOf(run: Pick<StoredRun, "setup">, dayNumber: number): number {
  return marketDayCloseOf(dayMarketOf(run.setup), dayNumber);
}

/** When local day `dayNumber` of `market` ends: its regular session's close, or midnight on a closed day (the engine's `regularCloseOf`, which stamps its day ends). */
export const marketDayCloseOf = regularCloseOf;

/**
 * For drivers over stored candles (replays, historical MTF sessions): ends the engine's trading
 * day at its market's close before a bar of a later day is fed, as the day rollover does for a
 * simulation or live run (day orders expire, `day_end`, the daily counters restart). The day's
 * end is then stamped at the close, never before the day's own events.
 */
export function closeDayBefore(run: Pick<StoredRun, "setup">, engine: TradingEngine, barMs: number): void {
  const day = engine.tradingDay;
  if (day < 0) return;
  if (utcToZoned(Markets[dayMarketOf(run.setup)].timeZone, barMs).dayNumber === day) return;
  engine.endDay(dayCloseOf(run, day));
}

/**
 * When a bar closes for the engine: its open plus its period, but no later than the regular close
 * of its day (the market's last hourly bar, a daily bar), so that what it causes is not stamped
 * after the day's end. `memo` keeps the last day's close between bars.
 */
export function barCloseOf(run: Pick<StoredRun, "setup">, bar: { timestamp: number }, timeframe: Timeframe, memo: { day: number; close: number }): number {
  return marketBarCloseOf(dayMarketOf(run.setup), bar, timeframe, memo);
}

/** `barCloseOf` for a bar of `market`'s day (the live session worker's candlesticks, by their symbol's market; backtests' bars too). */
export function marketBarCloseOf(market: Market, bar: { timestamp: number }, timeframe: Timeframe, memo: { day: number; close: number }): number {
  return barCloseIn(market, bar.timestamp, timeframe, memo);
}

/** Ends the day under way at its market's close (a driver's range is done). */
export function closeDayAtEnd(run: Pick<StoredRun, "setup">, engine: TradingEngine): void {
  if (engine.tradingDay >= 0) engine.endDay(dayCloseOf(run, engine.tradingDay));
}

export const DayRollover = {
  /**
   * Rolls one session's run if its day has closed by `now`; null when nothing was due. Saved
   * conditionally on the run's version (the worker may be feeding it), retried on a conflict.
   */
  async rollSession(deps: ViewDeps, session: StoredSession, now: number): Promise<RolledSession | null> {
    const runId = session.run_id ?? session.id;
    const rolled = await updateRun(deps, runId, (run) => {
      if (!run.snapshot || run.snapshot.day < 0) return null;
      const day = run.snapshot.day;
      const close = dayCloseOf(run, day);
      if (now < close + ROLLOVER_GRACE_MS) return null;
      const engine = engineOf(run);
      const pending = engine.view(null).pending_orders.length;
      engine.endDay(close);
      // The cursor moves to the close: a bar of the closed day arriving late is not fed (it would reopen the day).
      const progress = { cursor_ms: 0, bars: 0, bars_total: 0, done: false, ...run.progress };
      progress.cursor_ms = Math.max(progress.cursor_ms, close);
      return { engine, value: { day, pending }, progress };
    });
    if (!rolled) return null;
    const { day, pending } = rolled.value;
    return {
      session_id: session.id,
      date: isoDateOf(day),
      orders_expired: pending,
      equity: rolled.engine.totalEquity(),
      events: rolled.events,
      session,
      engine: rolled.engine,
    };
  },

  /**
   * The shards of the live list: the rollover's Map runs one child per shard (docs/workflows.md
   * "The day rollover"), so no one invocation rolls every session.
   */
  shards(deps: Pick<RolloverDeps, "sessions">): number[] {
    return Array.from({ length: deps.sessions.sessions.liveShards }, (_, shard) => shard);
  },

  /**
   * Rolls the running or paused simulation and live sessions of one shard of the live list whose
   * day has closed by `now`, `ROLL_CONCURRENCY` at a time; the symbols of those rolled are the
   * calendars to roll after.
   */
  async rollShard(deps: Pick<RolloverDeps, "sessions">, shard: number, now: number): Promise<ShardRollover> {
    const live = (await deps.sessions.sessions.listLive(shard)).filter(isActiveOnWorker);
    const rolled: RolledSession[] = [];
    await inParallel(live, ROLL_CONCURRENCY, async (session) => {
      const done = await DayRollover.rollSession(deps.sessions, session, now);
      if (done) rolled.push(done);
    });
    const symbols = new Set(rolled.flatMap(({ session }) => liveFeedsOf(session).map((feed) => feed.symbol)));
    return { sessions: live.length, rolled, symbols: [...symbols].sort() };
  },

  /** Stores the calendars of `symbols` a week ahead of `now`; a symbol the provider cannot answer is listed apart. */
  async rollCalendars(deps: Pick<RolloverDeps, "calendar">, symbols: readonly string[], now: number): Promise<CalendarRollover> {
    const calendars: string[] = [];
    const calendar_failures: CalendarRollover["calendar_failures"] = [];
    const start = new Date(now).toISOString();
    const end = new Date(now + CALENDAR_DAYS_AHEAD * MS_PER_DAY).toISOString();
    for (const symbol of [...new Set(symbols)].sort()) {
      try {
        await TradingCalendar.init(deps.calendar, symbol, { start_date: start, end_date: end });
        calendars.push(symbol);
      } catch (error) {
        calendar_failures.push({ symbol, message: error instanceof Error ? error.message : String(error) });
      }
    }
    return { calendars, calendar_failures };
  },
};
