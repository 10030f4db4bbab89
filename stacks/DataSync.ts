import { Cron, type Function, use, type StackContext } from "sst/constructs";
import { Schedules, pascalName } from "../packages/core/src/registry";
import { Queues } from "./Queues";
import { Realtime } from "./Realtime";
import { Storage } from "./Storage";
import { Workflows } from "./Workflows";
import { buildProps } from "./functions";

/**
 * The data sync service's moving parts besides its HTTP group: the `data-sync` queue worker
 * (from the Queues stack) pushes log lines to the WebSocket API, and an EventBridge schedule
 * runs the polling gap fill every few minutes. The other pushers of progress get the same
 * grant: the `stock-import` worker (an import's progress on its symbol's log stream) and the
 * backtest workflow's tasks (a backtest's progress on its session's stream).
 */
export function DataSync({ stack }: StackContext) {
  const { table, secrets } = use(Storage);
  const { queueByName, queueEnvironment, sendTo } = use(Queues);
  const { managementEndpoint, manageConnections } = use(Realtime);
  // The Queues stack builds every consumer with sst's Function.
  const pushers = [
    queueByName["data-sync"].consumerFunction as Function,
    queueByName["stock-import"].consumerFunction as Function,
    ...use(Workflows).functions,
  ];
  for (const pusher of pushers) {
    pusher.addEnvironment("WS_MANAGEMENT_ENDPOINT", managementEndpoint);
    pusher.attachPermissions([manageConnections]);
  }
  const { schedule, handler, timeoutSeconds } = Schedules["data-sync-poll"];
  const poll = new Cron(stack, pascalName("data-sync-poll"), {
    schedule,
    job: {
      function: {
        handler,
        timeout: timeoutSeconds,
        ...buildProps({ provider: true }),
        environment: { TABLE_NAME: table.tableName, ...secrets.environment, ...queueEnvironment },
        // The poll only moves the state and queues the next step of the run.
        permissions: [table, sendTo(["data-sync"])],
      },
    },
  });
  secrets.grantRead(poll.jobFunction);
  return { poll };
}
