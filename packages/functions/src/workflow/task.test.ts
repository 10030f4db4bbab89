import { describe, expect, it } from "vitest";
import type { Services } from "@tp/adapters/services";
import { BacktestTaskInput, BacktestTaskOutput } from "@tp/core/workflows";
import { LOCAL_TASK_BUDGET_MS, workflowTask } from "./task";

const NOW = 1_700_000_000_000;
const services = async () => ({ now: () => NOW }) as Services;
const schemas = { input: BacktestTaskInput, output: BacktestTaskOutput };

describe("a workflow task over the services", () => {
  it("gives the work the parsed input and a deadline before the invocation's end", async () => {
    const seen: unknown[] = [];
    const handler = workflowTask(services, schemas, async (_, input, deadlineMs) => {
      seen.push(input, deadlineMs);
      return { backtest_id: input.backtest_id, status: "running" as const };
    });
    expect(await handler({ backtest_id: "bt-1", extra: 1 }, { getRemainingTimeInMillis: () => 120_000 })).toEqual({
      backtest_id: "bt-1",
      status: "running",
    });
    expect(seen).toEqual([{ backtest_id: "bt-1" }, NOW + 100_000]);
  });

  it("works for the local budget without a Lambda context", async () => {
    let deadline = 0;
    const handler = workflowTask(services, schemas, async (_, input, deadlineMs) => {
      deadline = deadlineMs;
      return { backtest_id: input.backtest_id, status: "done" as const };
    });
    await handler({ backtest_id: "bt-1" });
    expect(deadline).toBe(NOW + LOCAL_TASK_BUDGET_MS);
  });

  it("fails on an input or an answer outside the contract, so the state machine's Catch sees it", async () => {
    const handler = workflowTask(services, schemas, async (_, input) => ({ backtest_id: input.backtest_id, status: "finished" as never }));
    await expect(handler({})).rejects.toThrow(/backtest_id/);
    await expect(handler({ backtest_id: "bt-1" })).rejects.toThrow(/status/);
  });
});
