import { Sweeps } from "@tp/core/backtests/index";
import { TERMINAL } from "@tp/core/backtests/control";
import { runGrid as runGridChunk } from "@tp/core/backtests/sweep-grid-tasks";
import { SweepFailureInput, SweepGridInput, SweepGridOutput, SweepTaskInput, SweepTaskOutput } from "@tp/core/workflows";
import { notifyUser, workflowEnded } from "@tp/core/webhooks/notify";
import { notifier } from "@tp/adapters/compose/webhooks";
import { tradingBacktests, tradingChannels } from "@tp/adapters/compose/trading";
import type { Services } from "@tp/adapters/services";
import type { TradingServices } from "@tp/adapters/trading";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { workflowTask } from "./task";

type SweepServices = Pick<Services, "now" | "notifier"> & { trading: Pick<TradingServices, "backtests" | "channels"> };

/**
 * A task that may end the sweep (Finalize, MarkFailed): when this call moved it to completed,
 * stopped or failed, its owner's webhooks are told (`sweep_completed`, docs/security.md "Webhooks");
 * a retried task finds it ended already and tells no one again.
 */
const ending =
  <I extends { sweep_id: string }>(work: (s: SweepServices, input: I) => Promise<SweepTaskOutput>) =>
  async (s: SweepServices, input: I): Promise<SweepTaskOutput> => {
    const sweeps = s.trading.backtests.sweeps;
    const before = await sweeps.get(input.sweep_id);
    const output = await work(s, input);
    if (!before || TERMINAL.includes(before.status)) return output;
    const after = await sweeps.get(input.sweep_id);
    if (after && TERMINAL.includes(after.status)) {
      const data = { runs: after.runs.length, error: after.error };
      await notifyUser(s.notifier, after.user_id, [workflowEnded("sweep_completed", after, s.now(), data)]);
    }
    return output;
  };

/** The sweep state machine's own tasks over a composition root (its runs use the backtest's tasks, `./backtest.ts`). */
export function sweepHandlers(services: () => Promise<SweepServices>) {
  const task = { input: SweepTaskInput, output: SweepTaskOutput };
  return {
    plan: workflowTask(services, task, (s, input) => Sweeps.plan(s.trading.backtests, input)),
    // A chunk of a walk-forward's in-sample grid, then the sweep's progress pushed once for the chunk.
    runGrid: workflowTask(services, { input: SweepGridInput, output: SweepGridOutput }, async (s, input, deadlineMs) => {
      const output = await runGridChunk(s.trading.backtests, input, deadlineMs);
      await Sweeps.publishProgress(s.trading.backtests, s.trading.channels, input.sweep_id);
      return output;
    }),
    finalize: workflowTask(
      services,
      task,
      ending((s, input) => Sweeps.finalize(s.trading.backtests, input)),
    ),
    fail: workflowTask(
      services,
      { ...task, input: SweepFailureInput },
      ending((s, input) => Sweeps.fail(s.trading.backtests, input)),
    ),
  };
}

const tasks = sweepHandlers(
  lambdaComposition((c) => ({ trading: { backtests: tradingBacktests(c), channels: tradingChannels(c) }, notifier: notifier(c), now: c.now })),
);
export const plan = observed("workflow", tasks.plan);
export const runGrid = observed("workflow", tasks.runGrid);
export const finalize = observed("workflow", tasks.finalize);
export const fail = observed("workflow", tasks.fail);
