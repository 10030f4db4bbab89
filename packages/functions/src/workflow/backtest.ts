// The modules themselves, not the backtests' index: its other namespaces (sweeps, bias checks, Monte Carlo) would ride in this bundle.
import * as Backtests from "@tp/core/backtests/backtests";
import { BacktestFailureInput, BacktestTaskInput, BacktestTaskOutput } from "@tp/core/workflows";
import { notifyingBacktests, tradingChannels } from "@tp/adapters/compose/trading";
import type { Services } from "@tp/adapters/services";
import type { TradingServices } from "@tp/adapters/trading";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { workflowTask } from "./task";

type TaskServices = Pick<Services, "now"> & { trading: Pick<TradingServices, "backtests" | "channels"> };

/** A task that, once it has written its progress, pushes the progress view on the session's stream (`backtest_progress`). */
const pushing =
  <I, D extends unknown[]>(work: (s: TaskServices, input: I, ...rest: D) => Promise<BacktestTaskOutput>) =>
  async (s: TaskServices, input: I, ...rest: D): Promise<BacktestTaskOutput> => {
    const output = await work(s, input, ...rest);
    await Backtests.publishProgress(s.trading.backtests, s.trading.channels, output.backtest_id);
    return output;
  };

/** The backtest state machine's tasks over a composition root (the Lambda's, or the embedded runtime's). */
export function backtestHandlers(services: () => Promise<TaskServices>) {
  const task = { input: BacktestTaskInput, output: BacktestTaskOutput };
  return {
    prepare: workflowTask(
      services,
      task,
      pushing((s, input) => Backtests.prepare(s.trading.backtests, input)),
    ),
    runChunk: workflowTask(
      services,
      task,
      pushing((s, input, deadlineMs: number) => Backtests.runChunk(s.trading.backtests, input, deadlineMs)),
    ),
    finalize: workflowTask(services, task, async (s, input) => {
      // The last chunk records the result and pushes it done: finalize pushes only what it recorded itself.
      const recorded = Boolean((await s.trading.backtests.backtests.get(input.backtest_id))?.result);
      if (recorded) return Backtests.finalize(s.trading.backtests, input);
      return pushing((t, i: typeof input) => Backtests.finalize(t.trading.backtests, i))(s, input);
    }),
    fail: workflowTask(
      services,
      { ...task, input: BacktestFailureInput },
      pushing((s, input) => Backtests.fail(s.trading.backtests, input)),
    ),
  };
}

// A backtest's end is told to its owner's webhooks (`backtest_completed`, docs/security.md "Webhooks").
const tasks = backtestHandlers(lambdaComposition((c) => ({ trading: { backtests: notifyingBacktests(c), channels: tradingChannels(c) }, now: c.now })));
export const prepare = observed("workflow", tasks.prepare);
export const runChunk = observed("workflow", tasks.runChunk);
export const finalize = observed("workflow", tasks.finalize);
export const fail = observed("workflow", tasks.fail);
