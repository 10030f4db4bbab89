import { describe, expect, it } from "vitest";
import type { Actor } from "../users";
import type { WorkflowInput } from "../workflows";
import type { ControlStatus } from "./control";
import { type ControllableRun, type ControllableRunStore, flagsOf, percentOf, runControl } from "./controllable-run";

const owner: Actor = { id: "u1", user_type: "user" };

const runOf = (overrides: Partial<ControllableRun> = {}): ControllableRun => ({
  id: "r1",
  session_id: "s1",
  user_id: owner.id,
  status: "running",
  message: "Running",
  pause_requested: false,
  stop_requested: false,
  executions: 1,
  import_task_ids: [],
  error: null,
  version: 1,
  created_at: "2026-01-02T00:00:00.000Z",
  updated_at: "2026-01-02T00:00:00.000Z",
  finished_at: null,
  ...overrides,
});

/** A run kind over an in-memory store, recording the executions it starts. */
function kindOver(...runs: ControllableRun[]) {
  const stored = new Map(runs.map((run) => [run.id, run]));
  const store: ControllableRunStore<ControllableRun> = {
    create: async (run) => void stored.set(run.id, run),
    get: async (id) => stored.get(id),
    replace: async (run, expected) => stored.get(run.id)?.version === expected && Boolean(stored.set(run.id, run)),
    active: async () => [...stored.values()].filter((run) => ["queued", "importing", "running", "pausing", "stopping"].includes(run.status)),
  };
  const started: { workflow: string; name: string; input: WorkflowInput }[] = [];
  const deps = {
    sweeps: store,
    now: () => Date.parse("2026-01-03T00:00:00Z"),
    workflows: { start: async (workflow: string, name: string, input: WorkflowInput) => void started.push({ workflow, name, input }) },
  };
  const control = runControl({
    name: "sweep",
    store: "sweeps",
    progressOf: async (_deps: typeof deps, run: ControllableRun) => ({ sweep_id: run.id }),
    said: { pause: "pausing", resume: "resumed", stop: "stopping" },
    hasResult: (run) => run.status === "completed",
    recovers: (run) => run.id !== "skipped",
  });
  return { control, deps, stored, started };
}

describe("a controllable run's control", () => {
  it("answers another user's pause 403 and leaves the run as it was", async () => {
    const { control, deps, stored } = kindOver(runOf());
    await expect(control.pause(deps, { id: "u2", user_type: "user" }, "r1")).rejects.toMatchObject({ status: 403 });
    expect(stored.get("r1")?.status).toBe("running");
  });

  it("answers a run that does not exist 404 with the kind's code", async () => {
    const { control, deps } = kindOver();
    await expect(control.stop(deps, owner, "r9")).rejects.toMatchObject({ status: 404, code: "SWEEP_NOT_FOUND" });
  });

  it("resumes a paused run with a new execution of the kind's workflow, named by its count", async () => {
    const { control, deps, stored, started } = kindOver(runOf({ status: "paused", pause_requested: true }));
    const answer = await control.resume(deps, owner, "r1");
    expect(answer).toEqual({ success: true, message: "Sweep r1 resumed", sweep_id: "r1", status: "queued" });
    expect(stored.get("r1")).toMatchObject({ status: "queued", executions: 2, version: 2, updated_at: "2026-01-03T00:00:00.000Z" });
    expect(started).toEqual([{ workflow: "sweep", name: "r1-2", input: { sweep_id: "r1" } }]);
  });

  it("refuses the result of a failed run with its error, and of a running one as not finished", async () => {
    const { control, deps } = kindOver(runOf({ id: "f", status: "failed", error: "boom" }), runOf());
    await expect(control.finished(deps, owner, "f")).rejects.toMatchObject({ status: 409, code: "SWEEP_FAILED", message: "Sweep f failed: boom" });
    await expect(control.finished(deps, owner, "r1")).rejects.toMatchObject({ status: 409, code: "SWEEP_NOT_FINISHED" });
  });

  it("restarts the active runs the kind recovers, each with a new execution", async () => {
    const { control, deps, started } = kindOver(runOf(), runOf({ id: "skipped" }), runOf({ id: "done", status: "completed" }));
    expect(await control.recover(deps)).toEqual(["r1"]);
    expect(started.map((s) => s.name)).toEqual(["r1-2"]);
  });
});

describe("a progress view's figures", () => {
  it("rounds the share ended down and keeps it below 100 until the run completes", () => {
    const at = (status: ControlStatus) => ({ status });
    expect(percentOf(at("running"), 1, 3)).toBe(33.33);
    expect(percentOf(at("running"), 3, 3)).toBe(99.99);
    expect(percentOf(at("completed"), 0, 0)).toBe(100);
    expect(percentOf(at("queued"), 0, 0)).toBe(0);
  });

  it("counts a pausing run paused, not running", () => {
    expect(flagsOf({ status: "pausing" })).toEqual({ is_running: false, is_paused: true });
    expect(flagsOf({ status: "running" })).toEqual({ is_running: true, is_paused: false });
    expect(flagsOf({ status: "stopped" })).toEqual({ is_running: false, is_paused: false });
  });
});
