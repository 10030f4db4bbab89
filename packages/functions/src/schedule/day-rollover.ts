import { calendar, tradingChannels, sessionViews, type Services } from "@tp/adapters/services";
import { DayRollover } from "@tp/core/trading/rollover";
import * as Channels from "@tp/core/trading/channel-stream";
import { logger, observed } from "../observability";
import { lambdaComposition } from "../runtime";

/** What the rollover needs: the session views (runs, the market's clock), the update feed and socket, the calendars. */
export interface RolloverServices {
  sessions: Services["trading"]["sessions"];
  channels: Services["trading"]["channels"];
  calendar: Services["calendar"];
}

/**
 * The day rollover, invoked by an EventBridge schedule after each market's close (locally, a
 * timer): running simulation and live sessions whose trading day has closed settle it, expire
 * their day orders and restart their daily risk counters; their symbols' calendars are stored a
 * week ahead. Idempotent: a second run for the same day finds nothing due. The events go to the
 * sessions' sockets as the worker's are.
 */
export function dayRolloverHandler(services: () => Promise<RolloverServices>) {
  return async (): Promise<{ sessions: number; rolled: { session_id: string; date: string; orders_expired: number }[]; calendars: string[] }> => {
    const { sessions, channels, calendar } = await services();
    // The market's clock (the sessions'), which is not the wall clock on npm start's accelerated clock.
    const result = await DayRollover.run({ sessions, calendar }, sessions.now());
    // Through the session's update feed, as the worker publishes (channel updates included).
    for (const rolled of result.rolled)
      await Channels.publish(channels, rolled.session_id, Channels.streamMessagesOf(rolled.engine, rolled.session, rolled.events));
    const rolled = result.rolled.map(({ session_id, date, orders_expired }) => ({ session_id, date, orders_expired }));
    // Every invocation that did something is logged; the embedded runtime's minute timer is quiet otherwise.
    const level = rolled.length > 0 || result.calendar_failures.length > 0 ? "info" : "debug";
    logger[level]("Day rollover", {
      source: "day-rollover",
      sessions: result.sessions,
      rolled,
      calendars: result.calendars,
      calendar_failures: result.calendar_failures,
    });
    return { sessions: result.sessions, rolled, calendars: result.calendars };
  };
}

/** The rollover's function builds only the session views, the update feed and the calendars. */
export const handler = observed(
  "schedule",
  dayRolloverHandler(lambdaComposition((c) => ({ sessions: sessionViews(c), channels: tradingChannels(c), calendar: calendar(c) }))),
);
