import { z } from "zod";
import { conflict, DomainError, forbidden, notFound } from "../errors";
import { log } from "../log";
import { publish, type StreamDeps } from "../trading/channels/stream";
import type { Actor } from "../users";
import type { WorkflowInput, WorkflowStarter } from "../workflows";
import { ACTIVE, type Controlled, ControlStatus, executionName, paused, resumed, stopped, transition, updateVersioned } from "./control";

/**
 * A controllable run: a backtest or a parameter sweep, each run by a workflow of its own name and
 * controlled by its owner through the same endpoints (docs/backtests.md "States"). Here what every
 * kind stores (`ControllableRun`, the store's port), the pieces of its answers' schemas, and one
 * implementation of its ownership, progress, pause, resume, stop, result read, progress push and
 * recovery (`runControl`), told by a `RunKind` what its kind does differently.
 */

/** A run kind's name: its workflow's, the stem of its answers' id (`backtest_id`) and of its error codes (`BACKTEST_NOT_FOUND`). */
export type RunKindName = "backtest" | "sweep";

/** The owner's actions on a run. */
export type RunAction = "pause" | "resume" | "stop";

/** What every controllable run stores: the control fields, its owner and session, the imports it waits for, its failure and its times. */
export interface ControllableRun extends Controlled {
  session_id: string;
  user_id: string;
  /** The candle imports the run waits for before it runs. */
  import_task_ids: string[];
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

/** Storage port every run kind's store has. */
export interface ControllableRunStore<T extends ControllableRun> {
  create(run: T): Promise<void>;
  get(id: string): Promise<T | undefined>;
  /** Replaces if the stored version is still `expectedVersion`; false otherwise. */
  replace(run: T, expectedVersion: number): Promise<boolean>;
  /** Runs in an active state (queued, importing, running, pausing, stopping): the embedded runtime's recovery list. */
  active(): Promise<T[]>;
}

const idField = <N extends RunKindName>(name: N) => ({ [`${name}_id`]: z.string() }) as Record<`${N}_id`, z.ZodString>;

/** The schema of a kind's answer to pause, resume and stop (`id` its id in the API's document). */
export const controlResultOf = <N extends RunKindName>(name: N, id: string) =>
  z.object({ success: z.boolean(), message: z.string(), ...idField(name), status: ControlStatus }).meta({ id });

/**
 * The fields every kind's progress view has, for its schema to list in its own order among its own
 * figures: its id, status, stage (`running` the stages of a running run), percentage, flags and message.
 */
export const progressFieldsOf = <N extends RunKindName, const R extends readonly string[]>(name: N, running: R, progress: string) => ({
  ...idField(name),
  status: ControlStatus,
  stage: z.enum(["queued", "importing", ...running, "finalizing", "done"]),
  progress: z.number().describe(progress),
  is_running: z.boolean(),
  is_paused: z.boolean(),
  message: z.string(),
});

/** The fields every kind's result opens with: the run, its session and status, and the strategy, symbols and dates it ran over. */
export const resultFieldsOf = <N extends RunKindName>(name: N) => ({
  ...idField(name),
  session_id: z.string(),
  status: ControlStatus,
  strategy_name: z.string(),
  symbols: z.array(z.string()),
  start_date: z.string(),
  end_date: z.string(),
});

/** A progress view's percentage: 100 once completed, else the share ended, below 100 and to two decimals. */
export const percentOf = (run: Pick<Controlled, "status">, ended: number, total: number) =>
  run.status === "completed" ? 100 : total > 0 ? Math.min(99.99, Math.floor((ended / total) * 10_000) / 100) : 0;

/** A progress view's flags: running while active and not pausing, paused while pausing or paused. */
export const flagsOf = (run: Pick<Controlled, "status">) => ({
  is_running: ACTIVE.includes(run.status) && run.status !== "pausing",
  is_paused: run.status === "paused" || run.status === "pausing",
});

/** What a kind's control needs: its store (under the key `S`), the clock and the workflows. */
export type RunControlDeps<S extends string, T extends ControllableRun> = Record<S, ControllableRunStore<T>> & {
  now: () => number;
  workflows: WorkflowStarter;
};

/** What sets a run kind apart, for `runControl`. */
export interface RunKind<N extends RunKindName, S extends string, T extends ControllableRun, D extends RunControlDeps<S, T>, P> {
  name: N;
  /** The key of its store among the dependencies. */
  store: S;
  /** Its progress view (what `progress` answers and the session's stream is pushed). */
  progressOf(deps: D, run: T): Promise<P>;
  /** What the answer to each action says after the run's kind and id (`Backtest b1 resumed`). */
  said: Record<RunAction, string>;
  /** Whether its result can be read; a failed run answers 409 `<NAME>_FAILED`, any other 409 `<NAME>_NOT_FINISHED`. */
  hasResult(run: T): boolean;
  /** An action an owned run refuses, with why (a sweep's backtest is controlled through its sweep). */
  refuse?(run: T, action: RunAction): DomainError | undefined;
  /** What follows an action once it is stored (a backtest's session follows its status). */
  after?(deps: D, run: T, action: RunAction): Promise<void>;
  /** Whether recovery restarts this active run (a sweep's backtests are its sweep's to run again); all when absent. */
  recovers?(run: T): boolean;
}

/** The answer to pause, resume and stop. */
export type ControlAnswer<N extends RunKindName> = { success: boolean; message: string; status: ControlStatus } & Record<`${N}_id`, string>;

/** One run kind's control: the endpoints' work and the workflow's bookkeeping, the same for every kind but for what `kind` tells. */
export function runControl<
  N extends RunKindName,
  S extends string,
  T extends ControllableRun,
  D extends RunControlDeps<S, T>,
  P extends Record<string, unknown>,
>(kind: RunKind<N, S, T, D, P>) {
  const { name } = kind;
  const Kind = name === "backtest" ? "Backtest" : "Sweep";
  const code = name.toUpperCase();
  const idKey = `${name}_id`;
  const missing = (id: string) => notFound(`${code}_NOT_FOUND`, `${Kind} ${id} does not exist`);
  const storeOf = (deps: Pick<D, S>): ControllableRunStore<T> => deps[kind.store];

  /** The run if it exists (404 otherwise) and belongs to `actor`: its owner or an administrator, through an API key limited to sessions only one of those (403 otherwise). */
  async function owned(deps: Pick<D, S>, actor: Actor, id: string): Promise<T> {
    const run = await storeOf(deps).get(id);
    if (!run) throw missing(id);
    if (run.user_id !== actor.id && actor.user_type !== "admin") throw forbidden(`${Kind} ${id} belongs to another user`);
    if (actor.session_ids && !actor.session_ids.includes(run.session_id)) throw forbidden(`This API key is limited to other sessions than ${name} ${id}'s`);
    return run;
  }

  /** Applies `change` to the freshest run, retrying version conflicts; undefined when `change` declines. */
  const update = (deps: Pick<D, S | "now">, id: string, change: (current: T) => T | undefined) =>
    updateVersioned(storeOf(deps), deps.now, id, change, missing, `${code}_CHANGED`, Kind);

  /** Starts the run's latest execution of its workflow. */
  const startExecution = (deps: { workflows: WorkflowStarter }, run: T) => deps.workflows.start(name, executionName(run), { [idKey]: run.id } as WorkflowInput);

  /** An owner's action: the run's transition stored, a new execution started where it asks for one, the kind's follow-up, the answer. */
  async function act(deps: D, actor: Actor, id: string, action: RunAction, step: (run: T) => { next: T; startExecution: boolean }): Promise<ControlAnswer<N>> {
    const run = await owned(deps, actor, id);
    const refusal = kind.refuse?.(run, action);
    if (refusal) throw refusal;
    const next = await transition<T>(
      (change) => update(deps, id, change),
      step,
      (started) => startExecution(deps, started),
    );
    await kind.after?.(deps, next, action);
    return { success: true, message: `${Kind} ${id} ${kind.said[action]}`, [idKey]: next.id, status: next.status } as ControlAnswer<N>;
  }

  return {
    missing,
    owned,
    update,
    startExecution,

    /** The owner's progress view. */
    progress: async (deps: D, actor: Actor, id: string): Promise<P> => kind.progressOf(deps, await owned(deps, actor, id)),

    /** Asks the running workflow to pause at its next checkpoint, which is kept. */
    pause: (deps: D, actor: Actor, id: string) => act(deps, actor, id, "pause", (run) => ({ next: paused(run, name), startExecution: false })),

    /** Continues a paused run from its checkpoint (a new execution), or cancels a pause not yet taken. */
    resume: (deps: D, actor: Actor, id: string) => act(deps, actor, id, "resume", (run) => resumed(run, name)),

    /** Stops the run at its next checkpoint; what ran so far is finalised. */
    stop: (deps: D, actor: Actor, id: string) => act(deps, actor, id, "stop", (run) => stopped(run, name)),

    /** The owner's run with its result ready: 409 while it runs or after it failed. */
    async finished(deps: Pick<D, S>, actor: Actor, id: string): Promise<T> {
      const run = await owned(deps, actor, id);
      if (kind.hasResult(run)) return run;
      if (run.status === "failed") throw new DomainError(409, `${code}_FAILED`, `${Kind} ${id} failed: ${run.error ?? "unknown error"}`);
      throw conflict(`${code}_NOT_FINISHED`, `${Kind} ${id} is ${run.status}; its result is ready when it completes or is stopped`, { status: run.status });
    },

    /**
     * Pushes the run's progress view on its session's stream as a `<name>_progress` message (kept
     * in the session's update feed like every push, so a reconnecting client catches up on it). A
     * push that fails is logged and never fails the task that pushed: `GET …` still answers.
     */
    async publishProgress(deps: D, stream: StreamDeps, id: string): Promise<void> {
      try {
        const run = await storeOf(deps).get(id);
        if (!run) return;
        await publish(stream, run.session_id, [{ type: `${name}_progress`, data: await kind.progressOf(deps, run) }]);
      } catch (error) {
        log.error(`Pushing a ${name}'s progress failed`, { [idKey]: id, error: String(error) });
      }
    },

    /** Restarts the executions of active runs (the embedded runtime's start-up: its executions did not survive); the ids restarted. */
    async recover(deps: D): Promise<string[]> {
      const restarted: string[] = [];
      for (const run of await storeOf(deps).active()) {
        if (kind.recovers && !kind.recovers(run)) continue;
        const next = await update(deps, run.id, (r) => (ACTIVE.includes(r.status) ? { ...r, executions: r.executions + 1 } : undefined));
        if (!next) continue;
        await startExecution(deps, next);
        restarted.push(next.id);
      }
      return restarted;
    },
  };
}
