import { SYNC_POLL_MINUTES } from "./data-sync/index";
import { IMPORT_MAX_RECEIVES } from "./imports/index";
import { type QueueName, SESSION_COMMANDS_QUEUE } from "./jobs";
import { ROLLOVER_LOCAL_INTERVAL_MS, ROLLOVER_SCHEDULE } from "./trading/drivers/rollover";
import { WorkflowDefinitions, WorkflowTasks, type WorkflowName } from "./workflows";

// The one list of the service's background work: its queues, schedules and workflows. The stacks
// (stacks/Queues.ts, DataSync.ts, Worker.ts, Workflows.ts) build their resources from it and the
// embedded runtime (packages/local/src/background.ts) wires the same handlers from it; a test
// (test/infra/registry.test.ts) checks that both hold every entry. Plain data: no handler is
// imported here, each is named by its module path from the project root and its export.

/** A queue's Lambda consumer: its handler (`<module path>.<export>`), timeout and batch size. */
export interface LambdaConsumer {
  handler: string;
  timeoutSeconds: number;
  batchSize: number;
}

/** A queue: an SQS queue on AWS (a partition of the table-backed queue locally), with a dead-letter queue. */
export interface QueueEntry {
  fifo: boolean;
  /** How long a received message stays hidden from other receives (SQS). */
  visibilityTimeoutSeconds: number;
  /** How long an unreceived message is kept (SQS's default, 4 days, when absent). */
  retentionDays?: number;
  /** Receives after which a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** How long a dead-lettered message is kept. */
  deadLetterRetentionDays: number;
  /** Who consumes it: a Lambda function fed by the event source, or the session worker, which polls it. */
  consumer: { lambda: LambdaConsumer } | { sessionWorker: true };
}

/**
 * A schedule: an EventBridge rule invoking a function (`handler`) or starting a workflow's
 * execution (`workflow`) on AWS; a timer locally, calling the same handler or starting the same
 * workflow on the local runner.
 */
export type ScheduleEntry = {
  /** The EventBridge schedule expression. */
  schedule: string;
  /** The local timer's period in market milliseconds (on an accelerated clock it keeps the market's pace). */
  localIntervalMs: number;
} & ({ handler: string; timeoutSeconds: number } | { workflow: WorkflowName });

/** A workflow: a Step Functions state machine on AWS, aws-local-stepfunctions locally. */
export interface WorkflowEntry {
  /** Its Amazon States Language file, from the project root. */
  file: string;
  definition: object;
  /** Each task's export of `taskModule` and the placeholder its Task states name as `Resource`. */
  tasks: Record<string, string>;
  /** The module exporting the task handlers, from the project root. */
  taskModule: string;
  taskTimeoutSeconds: number;
}

/** The worker of a queue fed to Lambda; SQS advises a visibility timeout of six times the consumer's timeout. */
const QUEUE_WORKER_TIMEOUT_SECONDS = 300;

/** A batch of webhook deliveries: ten tries of at most 10 s each, sent side by side. */
const WEBHOOK_WORKER_TIMEOUT_SECONDS = 60;

export const Queues = {
  "stock-import": {
    fifo: false,
    visibilityTimeoutSeconds: QUEUE_WORKER_TIMEOUT_SECONDS * 6,
    maxReceiveCount: IMPORT_MAX_RECEIVES,
    deadLetterRetentionDays: 14,
    consumer: { lambda: { handler: "packages/functions/src/queue/stock-import.handler", timeoutSeconds: QUEUE_WORKER_TIMEOUT_SECONDS, batchSize: 1 } },
  },
  "data-sync": {
    fifo: false,
    visibilityTimeoutSeconds: QUEUE_WORKER_TIMEOUT_SECONDS * 6,
    maxReceiveCount: IMPORT_MAX_RECEIVES,
    deadLetterRetentionDays: 14,
    consumer: { lambda: { handler: "packages/functions/src/queue/data-sync.handler", timeoutSeconds: QUEUE_WORKER_TIMEOUT_SECONDS, batchSize: 1 } },
  },
  // Webhook deliveries (docs/security.md "Webhooks"): one try per message; a retry is a new message
  // with the schedule's delay, so the receive budget only catches a handler that keeps crashing.
  "webhook-delivery": {
    fifo: false,
    visibilityTimeoutSeconds: WEBHOOK_WORKER_TIMEOUT_SECONDS * 6,
    retentionDays: 1,
    maxReceiveCount: 5,
    deadLetterRetentionDays: 14,
    consumer: { lambda: { handler: "packages/functions/src/queue/webhook-delivery.handler", timeoutSeconds: WEBHOOK_WORKER_TIMEOUT_SECONDS, batchSize: 10 } },
  },
  // The session worker's commands (docs/session-worker.md): one message group per session.
  [SESSION_COMMANDS_QUEUE]: {
    fifo: true,
    visibilityTimeoutSeconds: 60,
    retentionDays: 1,
    maxReceiveCount: 5,
    deadLetterRetentionDays: 14,
    consumer: { sessionWorker: true },
  },
} as const satisfies Record<QueueName | typeof SESSION_COMMANDS_QUEUE, QueueEntry>;
export type RegisteredQueue = keyof typeof Queues;

/** The queues a Lambda function consumes (the job queues of `QueueNames`). */
export type LambdaQueue = { [Q in RegisteredQueue]: (typeof Queues)[Q]["consumer"] extends { lambda: LambdaConsumer } ? Q : never }[RegisteredQueue];

/** A queue's Lambda consumer, or undefined for the one the session worker polls. */
export const lambdaConsumerOf = (queue: RegisteredQueue): LambdaConsumer | undefined => {
  const consumer: QueueEntry["consumer"] = Queues[queue].consumer;
  return "lambda" in consumer ? consumer.lambda : undefined;
};

export const Schedules = {
  // The data sync service's polling gap fill.
  "data-sync-poll": {
    schedule: `rate(${SYNC_POLL_MINUTES} minutes)`,
    handler: "packages/functions/src/schedule/data-sync-poll.handler",
    timeoutSeconds: 60,
    localIntervalMs: SYNC_POLL_MINUTES * 60_000,
  },
  // The day rollover after each market's close, a workflow fanned out over the live list's shards; locally what is due is the clock's call, checked every minute.
  "day-rollover": {
    schedule: ROLLOVER_SCHEDULE,
    workflow: "day-rollover",
    localIntervalMs: ROLLOVER_LOCAL_INTERVAL_MS,
  },
} as const satisfies Record<string, ScheduleEntry>;
export type RegisteredSchedule = keyof typeof Schedules;

/** A task may run this long; the task wrapper answers 20 s before (packages/functions/src/workflow/task.ts). */
const WORKFLOW_TASK_TIMEOUT_SECONDS = 120;

const workflowEntry = (workflow: WorkflowName): WorkflowEntry => ({
  ...WorkflowDefinitions[workflow],
  tasks: WorkflowTasks[workflow],
  taskModule: `packages/functions/src/workflow/${workflow}`,
  taskTimeoutSeconds: WORKFLOW_TASK_TIMEOUT_SECONDS,
});

export const Workflows: Record<WorkflowName, WorkflowEntry> = {
  backtest: workflowEntry("backtest"),
  sweep: workflowEntry("sweep"),
  "day-rollover": workflowEntry("day-rollover"),
};

/** The construct id of a registry entry in the stacks (`stock-import` → `StockImport`). */
export const pascalName = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
