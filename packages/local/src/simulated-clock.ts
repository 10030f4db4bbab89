import { Calendar } from "@tp/core/market/calendar";
import type { Market } from "@tp/core/market/market";
import { AcceleratedClock } from "@tp/core/provider/clock";

/**
 * The embedded runtime's accelerated simulated clock (README, "Configuration"): with
 * `SIMULATED_CLOCK_SPEED=N` the simulated market, the paper broker and the trading sessions run
 * N times faster than the wall clock from `SIMULATED_CLOCK_START` (an ISO instant; by default the
 * open of the US regular session in progress, or of the last one), so a newcomer can watch a
 * session trade at any hour. Sign-in, tokens and queues keep the wall clock.
 */
export interface SimulatedClockSetting {
  clock: AcceleratedClock;
  speed: number;
  start: number;
}

/** The regular session's open in progress at `at`, or the most recent one before it. */
export function lastRegularOpen(market: Market, at: number): number {
  const calendar = Calendar.for(market);
  let date: string | null = calendar.localDateOf(at);
  for (let i = 0; i < 30 && date; i++) {
    const regular = calendar.isTradingDay(date) ? calendar.sessionsOf(date).find((s) => s.session === "Intraday") : undefined;
    if (regular && regular.start <= at) return regular.start;
    date = calendar.previousTradingDay(date);
  }
  throw new RangeError(`No regular ${market} session before ${new Date(at).toISOString()} in the calendar`);
}

/** The setting from the environment, or undefined for the wall clock. Bad values stop the start with a message. */
export function simulatedClockFromEnv(env: NodeJS.ProcessEnv, wall: () => number = Date.now): SimulatedClockSetting | undefined {
  const speedText = env.SIMULATED_CLOCK_SPEED?.trim();
  const startText = env.SIMULATED_CLOCK_START?.trim();
  if (!speedText && !startText) return undefined;
  const speed = speedText ? Number(speedText) : 1;
  if (!(speed > 0) || !Number.isFinite(speed) || speed > 100_000)
    throw new Error(`SIMULATED_CLOCK_SPEED must be a number above 0 and at most 100000, not '${speedText}'`);
  const start = startText ? Date.parse(startText) : lastRegularOpen("US", wall());
  if (!Number.isFinite(start)) throw new Error(`SIMULATED_CLOCK_START must be an ISO date-time such as 2026-03-09T14:30:00Z, not '${startText}'`);
  return { clock: new AcceleratedClock(start, speed, wall), speed, start };
}

/**
 * The wall-clock interval of a timer that keeps market time's pace (one clock per runtime): a
 * schedule every `marketMs` of market time fires `speed` times as often on an accelerated clock,
 * at most once a second.
 */
export function marketPacedInterval(marketMs: number, speed: number | undefined): number {
  return Math.max(1_000, marketMs / (speed ?? 1));
}
