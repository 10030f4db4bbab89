import { z } from "zod";
import backtestDefinition from "./workflows/backtest.asl.json";
import dayRolloverDefinition from "./workflows/day-rollover.asl.json";
import sweepDefinition from "./workflows/sweep.asl.json";

/** Step Functions state machines (docs/workflows.md); locally run by aws-local-stepfunctions with the same task handlers. */
export const WorkflowNames = ["backtest", "sweep", "day-rollover"] as const;
export type WorkflowName = (typeof WorkflowNames)[number];

/**
 * Each workflow's tasks: the export `packages/functions/src/workflow/<workflow>.<task>` and the
 * placeholder its ASL Task states name as `Resource` (`${...}`), which the stack substitutes
 * with that function's ARN and the embedded runtime maps to the same handler. A machine may also
 * name another workflow's placeholders: the sweep runs each of its backtests with the backtest's
 * own task functions.
 */
export const WorkflowTasks = {
  backtest: {
    prepare: "BacktestPrepareFunctionArn",
    runChunk: "BacktestRunChunkFunctionArn",
    finalize: "BacktestFinalizeFunctionArn",
    fail: "BacktestFailFunctionArn",
  },
  sweep: {
    plan: "SweepPlanFunctionArn",
    runGrid: "SweepRunGridFunctionArn",
    finalize: "SweepFinalizeFunctionArn",
    fail: "SweepFailFunctionArn",
  },
  "day-rollover": {
    plan: "DayRolloverPlanFunctionArn",
    roll: "DayRolloverRollFunctionArn",
    calendars: "DayRolloverCalendarsFunctionArn",
  },
} as const satisfies Record<WorkflowName, Record<string, string>>;
export type WorkflowTaskName<W extends WorkflowName> = keyof (typeof WorkflowTasks)[W];

/** Each workflow's Amazon States Language definition: its file (from the project root, for the stack) and its content. */
export const WorkflowDefinitions: Record<WorkflowName, { file: string; definition: object }> = {
  backtest: { file: "packages/core/src/workflows/backtest.asl.json", definition: backtestDefinition },
  sweep: { file: "packages/core/src/workflows/sweep.asl.json", definition: sweepDefinition },
  "day-rollover": { file: "packages/core/src/workflows/day-rollover.asl.json", definition: dayRolloverDefinition },
};

/**
 * Step Functions' two kinds of execution: Standard bills each state transition ($25 per million),
 * Express each execution ($1 per million) and its duration by memory (docs/workflows.md
 * "Standard or Express"). An Express execution ends after EXPRESS_MAX_SECONDS.
 */
export type ExecutionType = "STANDARD" | "EXPRESS";

/** How long an Express execution may run: Step Functions' limit, 5 minutes. */
export const EXPRESS_MAX_SECONDS = 300;

/**
 * Each workflow's execution type, and the child execution type of each of its Distributed Map
 * states (by state name), decided per workflow with the prices in docs/workflows.md. The stack
 * deploys the machine's type, the ASL file's `ProcessorConfig.ExecutionType` says the children's
 * (a test checks they agree) and the local runner reports which kind each state ran in.
 */
export const WorkflowExecutionTypes = {
  // Waits for imports and runs chunk after chunk (longer than 5 minutes), started once per name.
  backtest: { machine: "STANDARD", children: {} },
  // The sweep waits for imports and runs for up to a day; each run, one chunk per child, is an Express child, and so is each chunk of a walk-forward's grid.
  sweep: { machine: "STANDARD", children: { RunBacktests: "EXPRESS", RunGrid: "EXPRESS" } },
  // A few transitions a run (a Distributed Map needs a Standard machine); each shard's roll, seconds long, an Express child.
  "day-rollover": { machine: "STANDARD", children: { RollShards: "EXPRESS" } },
} as const satisfies Record<WorkflowName, { machine: ExecutionType; children: Record<string, ExecutionType> }>;

interface AslState {
  Type: string;
  ItemProcessor?: { ProcessorConfig?: { Mode?: string; ExecutionType?: ExecutionType }; States: Record<string, AslState> };
  Iterator?: { States: Record<string, AslState> };
  Branches?: { States: Record<string, AslState> }[];
}

/**
 * The kind of execution each state of a workflow's definition runs in, by state name: the
 * machine's for its own states (and an inline Map's or a Parallel's, which run inside it), the
 * child type of the Distributed Map a state sits in (its `ProcessorConfig.ExecutionType`).
 */
export function stateExecutionTypes(workflow: WorkflowName): Record<string, ExecutionType> {
  const types: Record<string, ExecutionType> = {};
  const visit = (states: Record<string, AslState>, type: ExecutionType) => {
    for (const [name, state] of Object.entries(states)) {
      types[name] = type;
      const processor = state.ItemProcessor ?? state.Iterator;
      if (state.Type === "Map" && processor) {
        const config = state.ItemProcessor?.ProcessorConfig;
        visit(processor.States, config?.Mode === "DISTRIBUTED" ? (config.ExecutionType ?? "STANDARD") : type);
      }
      for (const branch of state.Branches ?? []) visit(branch.States, type);
    }
  };
  visit((WorkflowDefinitions[workflow].definition as { States: Record<string, AslState> }).States, WorkflowExecutionTypes[workflow].machine);
  return types;
}

/** A workflow's Distributed Map states and their child execution type, as its ASL file declares them. */
export function distributedMaps(workflow: WorkflowName): Record<string, ExecutionType> {
  const maps: Record<string, ExecutionType> = {};
  const visit = (states: Record<string, AslState>) => {
    for (const [name, state] of Object.entries(states)) {
      const config = state.ItemProcessor?.ProcessorConfig;
      if (state.Type === "Map" && config?.Mode === "DISTRIBUTED") maps[name] = config.ExecutionType ?? "STANDARD";
      const processor = state.ItemProcessor ?? state.Iterator;
      if (processor) visit(processor.States);
      for (const branch of state.Branches ?? []) visit(branch.States);
    }
  };
  visit((WorkflowDefinitions[workflow].definition as { States: Record<string, AslState> }).States);
  return maps;
}

/** The task placeholders (`${...}`) a workflow's definition names, its own and other workflows' (found in the file as written). */
export function placeholdersOf(workflow: WorkflowName): string[] {
  const text = JSON.stringify(WorkflowDefinitions[workflow].definition);
  return Object.values(WorkflowTasks)
    .flatMap((tasks) => Object.values(tasks) as string[])
    .filter((placeholder) => text.includes(`\${${placeholder}}`));
}

/** The environment variable holding a workflow's state machine ARN (`STATE_MACHINE_ARN_BACKTEST`). */
export const stateMachineArnVariable = (workflow: WorkflowName) => `STATE_MACHINE_ARN_${workflow.toUpperCase().replace(/-/g, "_")}`;

/** What every backtest task receives. */
export const BacktestTaskInput = z.object({ backtest_id: z.string().min(1) });
export type BacktestTaskInput = z.infer<typeof BacktestTaskInput>;

/** What every backtest task answers; the machine's Choice reads `status`. */
export const BacktestTaskOutput = z.object({
  backtest_id: z.string(),
  status: z.enum(["importing", "running", "paused", "stopped", "done"]),
});
export type BacktestTaskOutput = z.infer<typeof BacktestTaskOutput>;
export type BacktestTaskStatus = BacktestTaskOutput["status"];

/** What the failure task receives: the error a task's Catch caught (Step Functions' `Error` and `Cause`). */
export const BacktestFailureInput = BacktestTaskInput.extend({ error: z.object({ Error: z.string(), Cause: z.string() }) });
export type BacktestFailureInput = z.infer<typeof BacktestFailureInput>;

/** Step Functions execution names: 1 to 80 letters, digits, `-` or `_` (what both runtimes accept). */
export const ExecutionName = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, "an execution name is 1-80 letters, digits, '-' or '_'");

/** What every sweep task receives. */
export const SweepTaskInput = z.object({ sweep_id: z.string().min(1) });
export type SweepTaskInput = z.infer<typeof SweepTaskInput>;

/** One chunk of a walk-forward's in-sample grid: what the `RunGrid` Map hands each child (docs/backtests.md "Walk-forward"). */
export const SweepGridInput = SweepTaskInput.extend({ window: z.int().min(0), chunk: z.int().min(0) });
export type SweepGridInput = z.infer<typeof SweepGridInput>;

/**
 * What the sweep's tasks answer: the Choice reads `status`; with `running` the Map runs the
 * backtests `runs` (their ids), with `grid` the `RunGrid` Map the chunks `grid` of a walk-forward's
 * in-sample grid, at most `max_concurrency` at once (the stage's setting).
 */
export const SweepTaskOutput = z.object({
  sweep_id: z.string(),
  status: z.enum(["importing", "running", "grid", "paused", "stopped", "done"]),
  runs: z.array(z.string()),
  grid: z.array(SweepGridInput).default([]),
  max_concurrency: z.int().min(1),
});
export type SweepTaskOutput = z.infer<typeof SweepTaskOutput>;

/** What a grid chunk's task answers: how it ended (`yielded`: its deadline came first, Plan answers it again) and its points with an outcome. */
export const SweepGridOutput = SweepGridInput.extend({
  status: z.enum(["done", "yielded", "paused", "stopped"]),
  points_done: z.int().min(0),
  points: z.int().min(0),
});
export type SweepGridOutput = z.infer<typeof SweepGridOutput>;

/** What the sweep's failure task receives. */
export const SweepFailureInput = SweepTaskInput.extend({ error: z.object({ Error: z.string(), Cause: z.string() }) });
export type SweepFailureInput = z.infer<typeof SweepFailureInput>;

/** The day rollover's input: nothing it reads (the schedule's rule sends `{}`; other fields are ignored). */
export const RolloverInput = z.object({});
export type RolloverInput = Record<string, never>;

/** What the day rollover's Plan answers: the market's clock it rolls at, and the live list's shards, a Map child each. */
export const RolloverPlan = z.object({ at: z.number(), shards: z.array(z.int().min(0)) });
export type RolloverPlan = z.infer<typeof RolloverPlan>;

/** What a shard's roll receives (the Map's `ItemSelector`). */
export const RolloverShardInput = z.object({ at: z.number(), shard: z.int().min(0) });

/** What a shard's roll answers; the Map keeps the counts and the symbols (its `ResultSelector`), the sessions are in the task's log. */
export const RolloverShardOutput = z.object({
  shard: z.int(),
  sessions: z.int(),
  rolled_count: z.int(),
  rolled: z.array(z.object({ session_id: z.string(), date: z.string(), orders_expired: z.int() })),
  symbols: z.array(z.string()),
});
export type RolloverShardOutput = z.infer<typeof RolloverShardOutput>;

/** What the calendars task receives: the shards' counts and symbols. */
export const RolloverCalendarsInput = z.object({
  at: z.number(),
  shards: z.array(z.object({ sessions: z.int(), rolled: z.int(), symbols: z.array(z.string()) })),
});

/** The rollover's outcome, the execution's output. */
export const RolloverOutput = z.object({
  sessions: z.int(),
  rolled: z.int(),
  calendars: z.array(z.string()),
  calendar_failures: z.array(z.object({ symbol: z.string(), message: z.string() })),
});
export type RolloverOutput = z.infer<typeof RolloverOutput>;

/** An execution's input: a backtest's or a sweep's id, or the rollover's nothing. */
export type WorkflowInput = BacktestTaskInput | SweepTaskInput | RolloverInput;

/** Starts workflow executions; names are unique per start (a repeated name is treated as already started). */
export interface WorkflowStarter {
  start(workflow: WorkflowName, executionName: string, input: WorkflowInput): Promise<void>;
}

/** Bars one backtest chunk task feeds the engine at most before it checkpoints (env BACKTEST_CHUNK_BARS overrides). */
export const BACKTEST_CHUNK_BARS = 250_000;

/** Backtests of a sweep run at once in the embedded runtime (env SWEEP_MAX_CONCURRENCY; on AWS the Workflows stack sets it per stage). */
export const SWEEP_MAX_CONCURRENCY = 4;

/** Days a sweep's runs are kept unless configured (SWEEP_RUN_TTL_DAYS; docs/operations.md "Sweeps"): long enough to look into any run of a recent sweep. */
export const SWEEP_RUN_TTL_DAYS = 30;
