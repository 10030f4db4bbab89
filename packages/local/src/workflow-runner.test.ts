import { afterEach, describe, expect, it, vi } from "vitest";
import type { Services } from "@tp/adapters/services";
import { BacktestFailureInput, BacktestTaskInput, BacktestTaskOutput, type BacktestTaskStatus } from "@tp/core/workflows";
import { workflowTask } from "@tp/functions/workflow/task";
import { log } from "@tp/core/log";
import { LocalWorkflowRunner, type LocalTaskHandler } from "./workflow-runner";

type Task = "prepare" | "runChunk" | "finalize" | "fail";

/**
 * Backtest tasks that answer scripted statuses in turn and record every call; a script entry
 * that is an Error is thrown, one that is a promise is awaited first.
 */
function scriptedTasks(scripts: Partial<Record<Task, (BacktestTaskStatus | Error | Promise<BacktestTaskStatus>)[]>>) {
  const calls: { task: Task; input: unknown }[] = [];
  const handler =
    (task: Task): LocalTaskHandler =>
    async (input) => {
      calls.push({ task, input });
      const next = await scripts[task]?.shift();
      if (next instanceof Error) throw next;
      return { backtest_id: (input as { backtest_id: string }).backtest_id, status: next ?? "stopped" };
    };
  const tasks = { prepare: handler("prepare"), runChunk: handler("runChunk"), finalize: handler("finalize"), fail: handler("fail") };
  return { calls, tasks: { backtest: () => tasks } };
}

let runner: LocalWorkflowRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  vi.restoreAllMocks();
});

describe("the local workflow runner on the backtest ASL file", () => {
  it("waits while importing, runs chunks while running, then finalizes", async () => {
    const { calls, tasks } = scriptedTasks({
      prepare: ["importing", "importing", "running"],
      runChunk: ["running", "running", "done"],
      finalize: ["done"],
    });
    runner = new LocalWorkflowRunner(tasks, { waitMs: 30 });
    const started = performance.now();
    await runner.start("backtest", "bt-1-1", { backtest_id: "bt-1" });
    const outcome = await runner.outcome("backtest", "bt-1-1");
    expect(calls.map((call) => call.task)).toEqual(["prepare", "prepare", "prepare", "runChunk", "runChunk", "runChunk", "finalize"]);
    expect(calls.every((call) => (call.input as { backtest_id: string }).backtest_id === "bt-1")).toBe(true);
    expect(outcome).toEqual({ status: "SUCCEEDED", output: { backtest_id: "bt-1", status: "done" } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(60); // two waits of the overridden 30 ms
  });

  it("ends a paused backtest without finalizing, and a new execution of the same machine resumes it", async () => {
    const { calls, tasks } = scriptedTasks({ prepare: ["paused", "running"], runChunk: ["done"], finalize: ["done"] });
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-2-1", { backtest_id: "bt-2" });
    expect(await runner.outcome("backtest", "bt-2-1")).toEqual({ status: "SUCCEEDED", output: { backtest_id: "bt-2", status: "paused" } });
    expect(calls.map((call) => call.task)).toEqual(["prepare"]);

    await runner.start("backtest", "bt-2-2", { backtest_id: "bt-2" });
    expect(await runner.outcome("backtest", "bt-2-2")).toEqual({ status: "SUCCEEDED", output: { backtest_id: "bt-2", status: "done" } });
    expect(calls.map((call) => call.task)).toEqual(["prepare", "prepare", "runChunk", "finalize"]);
  });

  it("finalizes a stopped backtest straight after the chunk that saw the flag", async () => {
    const { calls, tasks } = scriptedTasks({ prepare: ["running"], runChunk: ["running", "stopped"], finalize: ["stopped"] });
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-3-1", { backtest_id: "bt-3" });
    expect(await runner.outcome("backtest", "bt-3-1")).toEqual({ status: "SUCCEEDED", output: { backtest_id: "bt-3", status: "stopped" } });
    expect(calls.map((call) => call.task)).toEqual(["prepare", "runChunk", "runChunk", "finalize"]);
  });

  it("hands a task's error to the failure task and fails the execution with that error", async () => {
    const errors = vi.spyOn(log, "error").mockImplementation(() => undefined);
    const { calls, tasks } = scriptedTasks({ prepare: ["running"], runChunk: ["running", new Error("bars missing")], fail: ["stopped"] });
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-4-1", { backtest_id: "bt-4" });
    expect(await runner.outcome("backtest", "bt-4-1")).toEqual({ status: "FAILED", error: "Error", cause: "bars missing" });
    expect(calls.map((call) => call.task)).toEqual(["prepare", "runChunk", "runChunk", "fail"]);
    expect(calls[3]!.input).toEqual({ backtest_id: "bt-4", error: { Error: "Error", Cause: "bars missing" } });
    await Promise.resolve();
    expect(errors.mock.calls.at(-1)).toEqual([
      "Workflow execution did not succeed",
      {
        workflow: "backtest",
        execution: "bt-4-1",
        status: "FAILED",
        error: "Error",
        cause: "bars missing",
      },
    ]);
  });

  it("starts a name once: a second start of it is the first execution", async () => {
    const { calls, tasks } = scriptedTasks({ prepare: ["paused", "paused"] });
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-5-1", { backtest_id: "bt-5" });
    await runner.start("backtest", "bt-5-1", { backtest_id: "bt-5" });
    await runner.outcome("backtest", "bt-5-1");
    expect(calls.map((call) => call.task)).toEqual(["prepare"]);
  });

  it("rejects an execution name Step Functions would reject", async () => {
    runner = new LocalWorkflowRunner(scriptedTasks({}).tasks);
    await expect(runner.start("backtest", "bt 6/1", { backtest_id: "bt-6" })).rejects.toThrow(/execution name/);
  });

  it("aborts running executions on stop after the task in flight, and starts nothing more", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    let release!: (status: BacktestTaskStatus) => void;
    const chunk = new Promise<BacktestTaskStatus>((resolve) => (release = resolve));
    const { calls, tasks } = scriptedTasks({ prepare: ["running"], runChunk: [chunk, "running"] });
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-7-1", { backtest_id: "bt-7" });
    await vi.waitFor(() => expect(calls.map((call) => call.task)).toEqual(["prepare", "runChunk"]));
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false); // the chunk in flight still runs
    release("running");
    await stopping;
    expect(await runner.outcome("backtest", "bt-7-1")).toEqual({ status: "ABORTED" });
    expect(calls.map((call) => call.task)).toEqual(["prepare", "runChunk"]);
    await expect(runner.start("backtest", "bt-7-2", { backtest_id: "bt-7" })).rejects.toThrow(/stopped/);
  });
});

describe("the local workflow runner with tasks in the Lambda wrapper", () => {
  /** Tasks in the wrapper Lambda runs, each answering `status` (the failure task: stopped). */
  function entryPoints(status: string) {
    const calls: Task[] = [];
    const services = () => Promise.resolve({ now: () => 0 } as Services);
    const wrap = (task: Task) => {
      const schemas = { input: task === "fail" ? BacktestFailureInput : BacktestTaskInput, output: BacktestTaskOutput };
      return workflowTask(services, schemas, async (_, input) => {
        calls.push(task);
        return { backtest_id: input.backtest_id, status: (task === "fail" ? "stopped" : status) as BacktestTaskStatus };
      });
    };
    const handlers = { prepare: wrap("prepare"), runChunk: wrap("runChunk"), finalize: wrap("finalize"), fail: wrap("fail") };
    return { calls, tasks: { backtest: () => handlers } };
  }

  it("runs tasks wrapped as Lambda runs them", async () => {
    const { calls, tasks } = entryPoints("done");
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-8-1", { backtest_id: "bt-8" });
    expect(await runner.outcome("backtest", "bt-8-1")).toEqual({ status: "SUCCEEDED", output: { backtest_id: "bt-8", status: "done" } });
    expect(calls).toEqual(["prepare", "finalize"]);
  });

  it("fails a task that answers a status outside the contract, through the failure task", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { calls, tasks } = entryPoints("finished");
    runner = new LocalWorkflowRunner(tasks);
    await runner.start("backtest", "bt-9-1", { backtest_id: "bt-9" });
    expect(await runner.outcome("backtest", "bt-9-1")).toMatchObject({ status: "FAILED", error: "ZodError", cause: expect.stringContaining("status") });
    expect(calls).toEqual(["prepare", "fail"]);
  });
});
