import { Backtests } from "@tp/core/backtests/index";
import { BacktestFailureInput, BacktestTaskInput, BacktestTaskOutput } from "@tp/core/workflows";
import { tradingBacktests, type Services } from "@tp/adapters/services";
import type { TradingServices } from "@tp/adapters/trading";
import { observed } from "../observability";
import { lambdaComposition } from "../runtime";
import { workflowTask } from "./task";

/** The backtest state machine's tasks over a composition root (the Lambda's, or the embedded runtime's). */
export function backtestHandlers(services: () => Promise<Pick<Services, "now"> & { trading: Pick<TradingServices, "backtests"> }>) {
  const task = { input: BacktestTaskInput, output: BacktestTaskOutput };
  return {
    prepare: workflowTask(services, task, (s, input) => Backtests.prepare(s.trading.backtests, input)),
    runChunk: workflowTask(services, task, (s, input, deadlineMs) => Backtests.runChunk(s.trading.backtests, input, deadlineMs)),
    finalize: workflowTask(services, task, (s, input) => Backtests.finalize(s.trading.backtests, input)),
    fail: workflowTask(services, { ...task, input: BacktestFailureInput }, (s, input) => Backtests.fail(s.trading.backtests, input)),
  };
}

const tasks = backtestHandlers(lambdaComposition((c) => ({ trading: { backtests: tradingBacktests(c) }, now: c.now })));
export const prepare = observed("workflow", tasks.prepare);
export const runChunk = observed("workflow", tasks.runChunk);
export const finalize = observed("workflow", tasks.finalize);
export const fail = observed("workflow", tasks.fail);
