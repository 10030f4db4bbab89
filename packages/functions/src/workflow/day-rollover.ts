import { calendar } from "@tp/adapters/compose/market";
import { sessionViews, tradingChannels } from "@tp/adapters/compose/trading";
import type { Services } from "@tp/adapters/services";
import { DayRollover } from "@tp/core/trading/drivers/rollover";
import * as Channels from "@tp/core/trading/channels/stream";
import { RolloverCalendarsInput, RolloverInput, RolloverOutput, RolloverPlan, RolloverShardInput, RolloverShardOutput } from "@tp/core/workflows";
import { logger, observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { workflowTask } from "./task";

/** What the rollover needs: the session views (runs, the market's clock), the update feed and socket, the calendars. */
export interface RolloverServices {
  sessions: Services["trading"]["sessions"];
  channels: Services["trading"]["channels"];
  calendar: Services["calendar"];
}

/**
 * The day rollover's tasks (docs/workflows.md "The day rollover"), started by an EventBridge
 * schedule after each market's close (locally, a timer): Plan answers the shards of the live list,
 * each shard's sessions whose trading day has closed are rolled in a Map child, and the calendars
 * of their symbols are stored a week ahead. The events go to the sessions' sockets as the worker's do.
 */
export function dayRolloverHandlers(services: () => Promise<RolloverServices>) {
  const withNow = async () => {
    const resolved = await services();
    // The market's clock (the sessions'), which is not the wall clock on npm start's accelerated clock.
    return { ...resolved, now: resolved.sessions.now };
  };
  return {
    plan: workflowTask(withNow, { input: RolloverInput, output: RolloverPlan }, async (s) => ({ at: s.now(), shards: DayRollover.shards(s) })),
    roll: workflowTask(withNow, { input: RolloverShardInput, output: RolloverShardOutput }, async (s, { shard, at }) => {
      const { sessions, rolled, symbols } = await DayRollover.rollShard(s, shard, at);
      // Through the session's update feed, as the worker publishes (channel updates included).
      for (const done of rolled) await Channels.publish(s.channels, done.session_id, Channels.streamMessagesOf(done.engine, done.session, done.events));
      const summary = rolled.map(({ session_id, date, orders_expired }) => ({ session_id, date, orders_expired }));
      // A shard that rolled a session is logged; the embedded runtime's minute timer is quiet otherwise.
      logger[summary.length > 0 ? "info" : "debug"]("Day rollover of a shard", { source: "day-rollover", shard, sessions, rolled: summary });
      return { shard, sessions, rolled_count: summary.length, rolled: summary, symbols };
    }),
    calendars: workflowTask(withNow, { input: RolloverCalendarsInput, output: RolloverOutput }, async (s, { at, shards }) => {
      const result = await DayRollover.rollCalendars(
        s,
        shards.flatMap((shard) => shard.symbols),
        at,
      );
      const outcome = {
        sessions: shards.reduce((sum, shard) => sum + shard.sessions, 0),
        rolled: shards.reduce((sum, shard) => sum + shard.rolled, 0),
        ...result,
      };
      logger[outcome.rolled > 0 || result.calendar_failures.length > 0 ? "info" : "debug"]("Day rollover", { source: "day-rollover", ...outcome });
      return outcome;
    }),
  };
}

/** The rollover's functions build only the session views, the update feed and the calendars. */
const tasks = dayRolloverHandlers(lambdaComposition((c) => ({ sessions: sessionViews(c), channels: tradingChannels(c), calendar: calendar(c) })));
export const plan = observed("workflow", tasks.plan);
export const roll = observed("workflow", tasks.roll);
export const calendars = observed("workflow", tasks.calendars);
