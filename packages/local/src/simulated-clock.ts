import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Calendar } from "@tp/core/market/calendar";
import type { Market } from "@tp/core/market/market";
import { AcceleratedClock } from "@tp/core/provider/clock";

/**
 * The embedded runtime's accelerated simulated clock (README, "Configuration"): with
 * `SIMULATED_CLOCK_SPEED=N` the simulated market, the paper broker and the trading sessions run
 * N times faster than the wall clock from `SIMULATED_CLOCK_START` (an ISO instant; by default the
 * open of the full-length US regular session in progress, or of the next one: a weekend, a holiday
 * or a half day is skipped), so a newcomer can watch a session trade at any hour. Sign-in, tokens
 * and queues keep the wall clock.
 *
 * A data directory keeps the latest instant its clock reached (`simulated-clock.json`): a restarted
 * clock never starts before it, so nothing stored later reads as created before what was stored
 * earlier (docs/operations.md, "The simulated clock across restarts").
 */
export interface SimulatedClockSetting {
  clock: AcceleratedClock;
  speed: number;
  start: number;
  /** Set when the start was moved forward to the data directory's kept instant: the instant asked for. */
  asked?: number;
}

/** The first full-length regular session (not a half day) that has not closed at `at`: the one in progress, or the next. */
export function fullRegularSession(market: Market, at: number): { start: number; end: number } {
  const calendar = Calendar.for(market);
  let date: string | null = calendar.localDateOf(at);
  if (!calendar.isTradingDay(date)) date = calendar.nextTradingDay(date);
  for (let i = 0; i < 30 && date; i++, date = calendar.nextTradingDay(date)) {
    if (calendar.isHalfDay(date)) continue;
    const regular = calendar.sessionsOf(date).find((s) => s.session === "Intraday");
    if (regular && regular.end > at) return { start: regular.start, end: regular.end };
  }
  throw new RangeError(`No full regular ${market} session after ${new Date(at).toISOString()} in the calendar`);
}

/** The default start at wall time `at`: the open of the full regular session in progress, or of the next one. */
export function regularOpenFrom(market: Market, at: number): number {
  return fullRegularSession(market, at).start;
}

/** Where a clock that had reached `mark` goes on: on from `mark` inside a full regular session, otherwise the next one's open. */
export function resumeFrom(market: Market, mark: number): number {
  const session = fullRegularSession(market, mark);
  return session.start <= mark ? mark : session.start;
}

/**
 * The setting from the environment, or undefined for the wall clock. Bad values stop the start with
 * a message. `kept`: the latest instant the data directory's clock reached, which the start never precedes.
 */
export function simulatedClockFromEnv(env: NodeJS.ProcessEnv, wall: () => number = Date.now, kept?: number): SimulatedClockSetting | undefined {
  const speedText = env.SIMULATED_CLOCK_SPEED?.trim();
  const startText = env.SIMULATED_CLOCK_START?.trim();
  if (!speedText && !startText) return undefined;
  const speed = speedText ? Number(speedText) : 1;
  if (!(speed > 0) || !Number.isFinite(speed) || speed > 100_000)
    throw new Error(`SIMULATED_CLOCK_SPEED must be a number above 0 and at most 100000, not '${speedText}'`);
  const asked = startText ? Date.parse(startText) : regularOpenFrom("US", wall());
  if (!Number.isFinite(asked)) throw new Error(`SIMULATED_CLOCK_START must be an ISO date-time such as 2026-03-09T14:30:00Z, not '${startText}'`);
  const resumed = kept === undefined ? undefined : resumeFrom("US", kept);
  const start = resumed !== undefined && resumed > asked ? resumed : asked;
  return { clock: new AcceleratedClock(start, speed, wall), speed, start, ...(start !== asked ? { asked } : {}) };
}

/** The file under DATA_DIR keeping the latest instant the simulated clock reached. */
export const CLOCK_MARK_FILE = "simulated-clock.json";

/** The kept instant, or undefined without one (a new data directory, or a runtime that never ran the simulated clock). */
export function readClockMark(dataDir: string): number | undefined {
  const file = join(dataDir, CLOCK_MARK_FILE);
  if (!existsSync(file)) return undefined;
  const reached = Date.parse((JSON.parse(readFileSync(file, "utf8")) as { reached?: string }).reached ?? "");
  return Number.isFinite(reached) ? reached : undefined;
}

/**
 * Keeps the clock's reading in the data directory every `everyMs` of wall time and at the stop (the
 * answer): after a crash the kept instant is at most `everyMs` x speed behind what the clock reached.
 * Written to a temporary file and renamed, so a crash never leaves half a file.
 */
export function keepClockMark(dataDir: string, clock: { now(): number }, everyMs = 1_000): () => void {
  const file = join(dataDir, CLOCK_MARK_FILE);
  const write = () => {
    writeFileSync(`${file}.tmp`, `${JSON.stringify({ reached: new Date(clock.now()).toISOString() })}\n`);
    renameSync(`${file}.tmp`, file);
  };
  write();
  const timer = setInterval(write, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    write();
  };
}

/**
 * The wall-clock interval of a timer that keeps market time's pace (one clock per runtime): a
 * schedule every `marketMs` of market time fires `speed` times as often on an accelerated clock,
 * at most once a second.
 */
export function marketPacedInterval(marketMs: number, speed: number | undefined): number {
  return Math.max(1_000, marketMs / (speed ?? 1));
}
