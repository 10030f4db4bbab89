import { ExecutionError, ExecutionTimeoutError, StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import { Workflows } from "@tp/core/registry";
import {
  EXPRESS_MAX_SECONDS,
  ExecutionName,
  distributedMaps,
  stateExecutionTypes,
  type ExecutionType,
  type WorkflowInput,
  type WorkflowName,
  type WorkflowStarter,
  type WorkflowTaskName,
} from "@tp/core/workflows";
import { log } from "@tp/core/log";

// aws-local-stepfunctions calls Promise.withResolvers (Node 22); the embedded runtime also runs on Node 20.
const promises = Promise as PromiseConstructor & { withResolvers?: () => object };
promises.withResolvers ??= () => {
  let resolve!: (value: unknown) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise((resolvePromise, rejectPromise) => {
    resolve = resolvePromise;
    reject = rejectPromise;
  });
  return { promise, resolve, reject };
};

/** A task as the local runner calls it: the state's input in, its output out (a Lambda handler without context). */
export type LocalTaskHandler = (input: unknown) => Promise<unknown>;

/** Each workflow's task handlers by task name (`prepare`, ...), asked for on the first start (they need the services). */
export type LocalWorkflowTasks = { [W in WorkflowName]?: () => Record<WorkflowTaskName<W>, LocalTaskHandler> };

/** How an execution ended, in Step Functions' words. */
export type ExecutionOutcome =
  | { status: "SUCCEEDED"; output: unknown }
  | { status: "FAILED"; error: string; cause: string }
  | { status: "TIMED_OUT" }
  | { status: "ABORTED" };

export interface LocalWorkflowRunnerOptions {
  /** How long every Wait state waits (ms), instead of its `Seconds` (200 ms unless given). */
  waitMs?: number;
  /** Told of every task when it ends (the benchmark's stage times), with the kind of execution it ran in. */
  observe?: (task: { workflow: WorkflowName; state: string; ms: number; input: unknown; execution: ExecutionType }) => void;
  /** Told of what Step Functions bills: every state entered, every Distributed Map child ended (bench/backtest.ts prices them). */
  meter?: (usage: WorkflowUsage) => void;
}

/** A billed step: a state entered (a Standard transition), or a Distributed Map's child execution ended, with its duration. */
export type WorkflowUsage =
  | { kind: "state"; workflow: WorkflowName; state: string; execution: ExecutionType }
  | { kind: "child"; workflow: WorkflowName; map: string; execution: ExecutionType; ms: number };

interface Execution {
  abort: () => void;
  outcome: Promise<ExecutionOutcome>;
}

interface StateDefinition {
  Type: string;
  Resource?: string;
  ItemProcessor?: { States: Record<string, StateDefinition> };
  Iterator?: { States: Record<string, StateDefinition> };
  Branches?: { States: Record<string, StateDefinition> }[];
}
type Definition = StateMachineDefinition & { States: Record<string, StateDefinition> };

/**
 * The Step Functions stand-in of the embedded runtime: runs each workflow's ASL file (from the
 * registry, packages/core/src/registry.ts) with
 * `aws-local-stepfunctions`, a Task state calling the handler whose placeholder (`${...}`) its
 * Resource names, as Step Functions calls the function substituted there. Executions live in
 * this process: `stop()` aborts them (after the task in flight) and a name is started once.
 */
export class LocalWorkflowRunner implements WorkflowStarter {
  private readonly executions = new Map<string, Execution>();
  private readonly tasksInFlight = new Set<Promise<unknown>>();
  private readonly machines = new Map<WorkflowName, { machine: StateMachine; handlers: Record<string, LocalTaskHandler>; waits: string[] }>();
  private byPlaceholder?: Map<string, LocalTaskHandler>;
  private stopped = false;

  constructor(
    private readonly tasks: LocalWorkflowTasks,
    private readonly options: LocalWorkflowRunnerOptions = {},
  ) {}

  async start(workflow: WorkflowName, executionName: string, input: WorkflowInput): Promise<void> {
    if (this.stopped) throw new Error("The workflow runner is stopped");
    const key = `${workflow}:${ExecutionName.parse(executionName)}`;
    // Step Functions answers ExecutionAlreadyExists, which the SFN starter treats as started.
    if (this.executions.has(key)) return;
    const { machine, handlers, waits } = this.machine(workflow);
    const run = machine.run(input, {
      overrides: {
        taskResourceLocalHandlers: handlers as Record<string, (input: unknown) => Promise<never>>,
        waitTimeOverrides: Object.fromEntries(waits.map((name) => [name, this.options.waitMs ?? 200])),
      },
      noThrowOnAbort: true,
      context: { Execution: { Id: `local:${key}`, Name: executionName } },
    });
    void this.follow(workflow, run.eventLogs);
    let aborted = false;
    const outcome = run.result.then(
      (output): ExecutionOutcome => (output === null && aborted ? { status: "ABORTED" } : { status: "SUCCEEDED", output }),
      (error: unknown): ExecutionOutcome => {
        if (error instanceof ExecutionTimeoutError) return { status: "TIMED_OUT" };
        const cause = error instanceof ExecutionError && error.cause instanceof Error ? error.cause : (error as Error);
        return { status: "FAILED", error: cause.name, cause: cause.message };
      },
    );
    void outcome.then((ended) => {
      if (ended.status === "SUCCEEDED") return;
      // Aborted by the runtime's stop: the work is checkpointed and recovered at the next start, not a failure.
      if (ended.status === "ABORTED" && this.stopped)
        return log.info("Workflow execution paused by the stop; it resumes at the next start", { workflow, execution: executionName });
      log.error("Workflow execution did not succeed", { workflow, execution: executionName, ...ended });
    });
    this.executions.set(key, {
      abort: () => {
        aborted = true;
        run.abort();
      },
      outcome,
    });
  }

  /** How an execution started here ended (waits for it); undefined for a name never started. */
  outcome(workflow: WorkflowName, executionName: string): Promise<ExecutionOutcome> | undefined {
    return this.executions.get(`${workflow}:${executionName}`)?.outcome;
  }

  /**
   * Starts an execution, waits for its end and forgets it: a schedule's, started under a fresh
   * name each time and never asked for again (the runner would otherwise keep one a minute).
   */
  async runOnce(workflow: WorkflowName, executionName: string, input: WorkflowInput): Promise<ExecutionOutcome> {
    await this.start(workflow, executionName, input);
    const key = `${workflow}:${executionName}`;
    try {
      return await this.executions.get(key)!.outcome;
    } finally {
      this.executions.delete(key);
    }
  }

  /** Aborts every execution and waits for the tasks in flight, so nothing touches the services after. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const execution of this.executions.values()) execution.abort();
    await Promise.allSettled([...this.executions.values()].map((execution) => execution.outcome));
    await Promise.allSettled([...this.tasksInFlight]);
  }

  /** The workflow's machine, its Task states' handlers (nested Map and Parallel states' too) and its Wait states, built on first use. */
  private machine(workflow: WorkflowName) {
    const existing = this.machines.get(workflow);
    if (existing) return existing;
    const definition = Workflows[workflow].definition as Definition;
    const byPlaceholder = this.placeholders();
    const types = stateExecutionTypes(workflow);
    const handlers: Record<string, LocalTaskHandler> = {};
    const waits: string[] = [];
    const visit = (states: Definition["States"]) => {
      for (const [stateName, state] of Object.entries(states)) {
        if (state.Type === "Wait") waits.push(stateName);
        if (state.Type === "Map") visit((state.ItemProcessor ?? state.Iterator)!.States);
        if (state.Type === "Parallel") for (const branch of state.Branches ?? []) visit(branch.States);
        if (state.Type !== "Task") continue;
        const handler = byPlaceholder.get(state.Resource ?? "");
        if (!handler) throw new Error(`Task state ${stateName} of workflow ${workflow} names ${state.Resource}, which no task declares`);
        const execution = types[stateName]!;
        handlers[stateName] = (input) => {
          const observe = this.options.observe;
          if (!observe) return this.track(handler(input));
          const started = performance.now();
          return this.track(handler(input).finally(() => observe({ workflow, state: stateName, ms: performance.now() - started, input, execution })));
        };
      }
    };
    visit(definition.States);
    // Validated as written: the `${...}` Resources are the validator's substitution extension.
    const built = { machine: new StateMachine(definition), handlers, waits };
    this.machines.set(workflow, built);
    return built;
  }

  /** Every task's handler by its placeholder, over all workflows given (a machine may run another workflow's tasks). */
  private placeholders(): Map<string, LocalTaskHandler> {
    if (this.byPlaceholder) return this.byPlaceholder;
    const byPlaceholder = new Map<string, LocalTaskHandler>();
    for (const workflow of Object.keys(this.tasks) as WorkflowName[]) {
      const tasks = this.tasks[workflow]!() as Record<string, LocalTaskHandler>;
      for (const [task, placeholder] of Object.entries(Workflows[workflow].tasks)) {
        if (!tasks[task]) throw new Error(`No local handler for task ${task} of workflow ${workflow}`);
        byPlaceholder.set(`\${${placeholder}}`, tasks[task]);
      }
    }
    this.byPlaceholder = byPlaceholder;
    return byPlaceholder;
  }

  /**
   * Reads an execution's events: meters its states and Distributed Map children, and logs an
   * Express child that ran past Step Functions' limit (on AWS it would have timed out, and failed the Map).
   */
  private async follow(workflow: WorkflowName, events: ReturnType<StateMachine["run"]>["eventLogs"]): Promise<void> {
    const types = stateExecutionTypes(workflow);
    const children = distributedMaps(workflow);
    const childStarts = new Map<string, number>();
    const meter = this.options.meter;
    for await (const event of events) {
      if (event.type === "StateEntered") meter?.({ kind: "state", workflow, state: event.state.name, execution: types[event.state.name]! });
      if (event.type !== "MapIterationStarted" && event.type !== "MapIterationSucceeded" && event.type !== "MapIterationFailed") continue;
      const map = event.parentState.name;
      const execution = children[map];
      // Only a Distributed Map's iterations are child executions (an inline Map's run in the execution itself).
      if (!execution) continue;
      const child = `${map}:${event.index}`;
      if (event.type === "MapIterationStarted") {
        childStarts.set(child, event.timestamp);
        continue;
      }
      const ms = event.timestamp - (childStarts.get(child) ?? event.timestamp);
      childStarts.delete(child);
      meter?.({ kind: "child", workflow, map, execution, ms });
      if (execution === "EXPRESS" && ms > EXPRESS_MAX_SECONDS * 1000) {
        log.error("An Express child execution ran past Step Functions' 5 minutes", { workflow, map, index: event.index, ms });
      }
    }
  }

  private track<T>(task: Promise<T>): Promise<T> {
    this.tasksInFlight.add(task);
    void task.finally(() => this.tasksInFlight.delete(task)).catch(() => undefined);
    return task;
  }
}
