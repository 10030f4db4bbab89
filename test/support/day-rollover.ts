import { randomUUID } from "node:crypto";
import type { Services } from "../../packages/adapters/src/services";
import type { RolloverOutput, RolloverShardOutput } from "../../packages/core/src/workflows";
import { dayRolloverHandlers } from "../../packages/functions/src/workflow/day-rollover";
import { LocalWorkflowRunner } from "../../packages/local/src/workflow-runner";

/**
 * Runs the day rollover's state machine (its ASL file on the local runner, with the very task
 * handlers the functions export) over a test's services, as the schedule starts it, and answers
 * its output with every rolled session's summary beside it (the machine's Map keeps only counts;
 * the summaries are the shards' roll tasks' answers).
 */
export async function runDayRollover(
  services: Pick<Services, "trading" | "calendar">,
): Promise<RolloverOutput & { rolled_sessions: RolloverShardOutput["rolled"] }> {
  const tasks = dayRolloverHandlers(async () => ({ sessions: services.trading.sessions, channels: services.trading.channels, calendar: services.calendar }));
  const rolled: RolloverShardOutput["rolled"] = [];
  const runner = new LocalWorkflowRunner({
    "day-rollover": () => ({
      ...tasks,
      roll: async (input: unknown) => {
        const shard = await tasks.roll(input);
        rolled.push(...shard.rolled);
        return shard;
      },
    }),
  });
  const outcome = await runner.runOnce("day-rollover", `day-rollover-${randomUUID()}`, {});
  if (outcome.status !== "SUCCEEDED") throw new Error(`The day rollover did not succeed: ${JSON.stringify(outcome)}`);
  return { ...(outcome.output as RolloverOutput), rolled_sessions: rolled };
}
