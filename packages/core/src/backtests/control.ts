import { z } from "zod";
import { conflict, type DomainError } from "../errors";

/**
 * The state machine a backtest and a parameter sweep share: the same states, the same pause,
 * resume and stop transitions (docs/backtests.md "States"), version-checked replacement and the
 * name of its workflow's executions. What a run kind stores and answers around it, and the
 * endpoints built on it, are in controllable-run.ts.
 */

/**
 * Where a backtest or sweep is: `queued` → `importing` → `running` ⇄ `pausing`/`paused` → `stopping` → `completed`, `stopped` or `failed`.
 * Named `BacktestStatus` in the API's documents, where a backtest's were the first.
 */
export const ControlStatus = z
  .enum(["queued", "importing", "running", "pausing", "paused", "stopping", "completed", "stopped", "failed"])
  .meta({ id: "BacktestStatus" });
export type ControlStatus = z.infer<typeof ControlStatus>;

export const ACTIVE: readonly ControlStatus[] = ["queued", "importing", "running", "pausing", "stopping"];
export const TERMINAL: readonly ControlStatus[] = ["completed", "stopped", "failed"];

/** What the transitions read and write of a backtest or a sweep. */
export interface Controlled {
  id: string;
  status: ControlStatus;
  message: string;
  pause_requested: boolean;
  stop_requested: boolean;
  /** Executions started so far; the next execution's name ends with this number plus one. */
  executions: number;
  version: number;
  updated_at: string;
}

/** The name of an item's latest workflow execution: its id and how many executions it has had. */
export const executionName = (item: Pick<Controlled, "id" | "executions">) => `${item.id}-${item.executions}`;

interface VersionedStore<T> {
  get(id: string): Promise<T | undefined>;
  replace(item: T, expectedVersion: number): Promise<boolean>;
}

/** Applies `change` to the freshest item, retrying version conflicts; undefined when `change` declines. */
export async function updateVersioned<T extends Controlled>(
  store: VersionedStore<T>,
  now: () => number,
  id: string,
  change: (current: T) => T | undefined,
  missing: (id: string) => DomainError,
  changedCode: string,
  kind: string,
): Promise<T | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await store.get(id);
    if (!current) throw missing(id);
    const next = change(current);
    if (!next) return undefined;
    const written = { ...next, version: current.version + 1, updated_at: new Date(now()).toISOString() };
    if (await store.replace(written, current.version)) return written;
  }
  throw conflict(changedCode, `${kind} ${id} changed concurrently; try again`);
}

/** The stage a progress view shows for a status; `running` names the stage of a running item. */
export function stageOf<R extends string>(status: ControlStatus, running: R): "done" | "queued" | "importing" | "finalizing" | R {
  if (TERMINAL.includes(status)) return "done";
  if (status === "queued" || status === "importing") return status;
  return status === "stopping" ? "finalizing" : running;
}

const illegal = (item: Controlled, kind: string, action: string) =>
  conflict("INVALID_STATE_TRANSITION", `Cannot ${action} ${kind} ${item.id}: it is ${item.status}`, { current_status: item.status, action });

/** Pause: asked of a queued, importing or running item, taken at its next checkpoint (no-op when already pausing or paused; 409 otherwise). */
export function paused<T extends Controlled>(item: T, kind: string): T {
  if (item.status === "paused" || item.status === "pausing") return item;
  if (!["queued", "importing", "running"].includes(item.status)) throw illegal(item, kind, "pause");
  return { ...item, status: "pausing", pause_requested: true, message: "Pausing at the next checkpoint" };
}

/** Resume: cancels a pause not yet taken, or continues a paused item with a new execution (`startExecution`); 409 otherwise. */
export function resumed<T extends Controlled>(item: T, kind: string): { next: T; startExecution: boolean } {
  if (item.status === "pausing") return { next: { ...item, status: "running", pause_requested: false, message: "Running" }, startExecution: false };
  if (item.status !== "paused") throw illegal(item, kind, "resume");
  return {
    next: { ...item, status: "queued", pause_requested: false, executions: item.executions + 1, message: "Resuming from the checkpoint" },
    startExecution: true,
  };
}

/** Stop: from any state not final; a paused item has no execution left to see the flag, so one is started to finalise it. */
export function stopped<T extends Controlled>(item: T, kind: string): { next: T; startExecution: boolean } {
  if (item.status === "stopping" || item.status === "stopped") return { next: item, startExecution: false };
  if (TERMINAL.includes(item.status)) throw illegal(item, kind, "stop");
  if (item.status === "paused") {
    return {
      next: { ...item, status: "stopping", stop_requested: true, pause_requested: false, executions: item.executions + 1, message: "Stopping" },
      startExecution: true,
    };
  }
  return { next: { ...item, status: "stopping", stop_requested: true, message: "Stopping at the next checkpoint" }, startExecution: false };
}

/**
 * Applies a transition (`resumed`, `stopped`) through `update` and starts the new execution it
 * asks for, once the change is stored.
 */
export async function transition<T extends Controlled>(
  update: (change: (current: T) => T) => Promise<T | undefined>,
  step: (item: T) => { next: T; startExecution: boolean },
  startExecution: (item: T) => Promise<void>,
): Promise<T> {
  let start = false;
  const next = (await update((current) => {
    const taken = step(current);
    start = taken.startExecution;
    return taken.next;
  }))!;
  if (start) await startExecution(next);
  return next;
}
