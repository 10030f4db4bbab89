import { randomUUID } from "node:crypto";
import type { Services } from "@tp/adapters/services";
import { log } from "@tp/core/log";
import { Queues, Schedules, lambdaConsumerOf, type LambdaQueue, type RegisteredSchedule } from "@tp/core/registry";
import type { WorkflowName } from "@tp/core/workflows";
import { dataSyncHandler } from "@tp/functions/queue/data-sync";
import { stockImportHandler } from "@tp/functions/queue/stock-import";
import { webhookDeliveryHandler } from "@tp/functions/queue/webhook-delivery";
import { dataSyncPollHandler } from "@tp/functions/schedule/data-sync-poll";
import { backtestHandlers } from "@tp/functions/workflow/backtest";
import { dayRolloverHandlers } from "@tp/functions/workflow/day-rollover";
import { sweepHandlers } from "@tp/functions/workflow/sweep";
import type { QueueHandler } from "./queue-runner";
import { marketPacedInterval } from "./simulated-clock";
import type { LocalWorkflowRunner, LocalWorkflowTasks } from "./workflow-runner";

// The embedded runtime's side of the registry (packages/core/src/registry.ts): for each queue,
// schedule and workflow the stacks deploy, the very handler the deployed function exports, over
// this runtime's services. Each table is typed by the registry's names, so an entry added there
// and not wired here fails the typecheck (and test/infra/registry.test.ts).

/** The handler of each queue a Lambda function consumes on AWS; the session worker polls the other itself. */
export function localQueueHandlers(services: () => Promise<Services>): Record<LambdaQueue, QueueHandler> {
  return {
    "stock-import": stockImportHandler(services),
    "data-sync": dataSyncHandler(services),
    "webhook-delivery": webhookDeliveryHandler(services),
  };
}

/** Each Lambda-fed queue's batch size, as its event source delivers it. */
export const localBatchSizes = (): Record<LambdaQueue, number> =>
  Object.fromEntries(
    (Object.keys(Queues) as (keyof typeof Queues)[]).flatMap((queue) => {
      const consumer = lambdaConsumerOf(queue);
      return consumer ? [[queue, consumer.batchSize]] : [];
    }),
  ) as Record<LambdaQueue, number>;

/** What each schedule does: invoke its handler, or run its workflow's execution on the local runner (as EventBridge starts it on AWS). */
export function localScheduleHandlers(
  services: () => Promise<Services>,
  workflows: Pick<LocalWorkflowRunner, "runOnce">,
): Record<RegisteredSchedule, () => Promise<unknown>> {
  return {
    "data-sync-poll": dataSyncPollHandler(services),
    "day-rollover": () => workflows.runOnce("day-rollover", `day-rollover-${randomUUID()}`, {}),
  };
}

/** Each workflow's task handlers (asked for on the workflow's first start). */
export function localWorkflowTasks(services: () => Promise<Services>): Required<LocalWorkflowTasks> & Record<WorkflowName, unknown> {
  return {
    backtest: () => backtestHandlers(services),
    sweep: () => sweepHandlers(services),
    "day-rollover": () =>
      dayRolloverHandlers(async () => {
        const { trading, calendar } = await services();
        return { sessions: trading.sessions, channels: trading.channels, calendar };
      }),
  };
}

/**
 * The EventBridge schedules' stand-in: a timer per schedule at its local interval, which on an
 * accelerated clock keeps market time's pace (one clock per runtime). Answers the stop, which
 * clears the timers and waits for the runs in flight (a stop never pulls the table from under one).
 */
export function startLocalSchedules(handlers: Record<RegisteredSchedule, () => Promise<unknown>>, clockSpeed: number | undefined): () => Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  const timers = (Object.keys(Schedules) as RegisteredSchedule[]).map((name) => {
    const timer = setInterval(
      () => {
        const run = handlers[name]().catch((error) => log.error("Scheduled handler failed", { schedule: name, error: String(error) }));
        inFlight.add(run);
        void run.finally(() => inFlight.delete(run));
      },
      marketPacedInterval(Schedules[name].localIntervalMs, clockSpeed),
    );
    timer.unref();
    return timer;
  });
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.allSettled([...inFlight]);
  };
}
