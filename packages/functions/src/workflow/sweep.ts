import { Sweeps } from "@tp/core/backtests/index";
import { SweepFailureInput, SweepTaskInput, SweepTaskOutput } from "@tp/core/workflows";
import { tradingBacktests, type Services } from "@tp/adapters/services";
import type { TradingServices } from "@tp/adapters/trading";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { workflowTask } from "./task";

/** The sweep state machine's own tasks over a composition root (its runs use the backtest's tasks, `./backtest.ts`). */
export function sweepHandlers(services: () => Promise<Pick<Services, "now"> & { trading: Pick<TradingServices, "backtests"> }>) {
  const task = { input: SweepTaskInput, output: SweepTaskOutput };
  return {
    plan: workflowTask(services, task, (s, input) => Sweeps.plan(s.trading.backtests, input)),
    finalize: workflowTask(services, task, (s, input) => Sweeps.finalize(s.trading.backtests, input)),
    fail: workflowTask(services, { ...task, input: SweepFailureInput }, (s, input) => Sweeps.fail(s.trading.backtests, input)),
  };
}

const tasks = sweepHandlers(lambdaComposition((c) => ({ trading: { backtests: tradingBacktests(c) }, now: c.now })));
export const plan = observed("workflow", tasks.plan);
export const finalize = observed("workflow", tasks.finalize);
export const fail = observed("workflow", tasks.fail);
