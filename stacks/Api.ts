import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Api as HttpApi, Function, use, type ApiRouteProps, type StackContext } from "sst/constructs";
import { groupRoutes } from "../packages/api/src/routes";
import type { QueueName } from "../packages/core/src/jobs";
import { pascalName as pascal } from "../packages/core/src/registry";
import { Queues } from "./Queues";
import { Realtime } from "./Realtime";
import { Storage } from "./Storage";
import { Workflows } from "./Workflows";
import { httpBuildProps } from "./functions";
import { corsOrigins } from "./stage";

/** Steady requests per second and burst the HTTP API's stage accepts before answering 429. */
export const API_THROTTLE = { rate: 500, burst: 1000 };

/**
 * What each group's function may do besides reading and writing the table: send to which queues,
 * push to WebSocket connections, start workflows. Everything else gets none of these. The docs
 * function serves every group (it is `$default`), so it needs all of them.
 */
const GROUP_GRANTS: Record<string, { queues?: readonly QueueName[]; sockets?: boolean; workflows?: boolean; sessionCommands?: boolean }> = {
  "stock-import": { queues: ["stock-import"] },
  "data-sync": { queues: ["data-sync"], sockets: true },
  // Test deliveries go to the webhook delivery queue.
  webhooks: { queues: ["webhook-delivery"] },
  backtest: { workflows: true },
  sweeps: { workflows: true },
  // Session starts, stops, orders and risk changes tell the session worker (its FIFO command queue).
  trading: { sessionCommands: true },
  // Channel commands push their events and channel updates to the session's socket and queue the
  // webhook deliveries of what they publish. They send no session command (docs/session-worker.md).
  channels: { sockets: true, queues: ["webhook-delivery"] },
  mtf: { sockets: true, queues: ["webhook-delivery"] },
};

/** The HTTP API: one function per endpoint group, each with the table and the token secret. */
export function Api({ stack, app }: StackContext) {
  const origins = corsOrigins(app.stage);
  const { table, secrets } = use(Storage);
  const { managementEndpoint, manageConnections } = use(Realtime);
  const { queueByName, queueEnvironment, sendCommands } = use(Queues);
  const { workflowEnvironment, startWorkflows } = use(Workflows);
  const grantsOf = (group: string) => {
    const needs = GROUP_GRANTS[group] ?? {};
    return [
      ...(needs.queues?.length
        ? [new PolicyStatement({ actions: ["sqs:SendMessage"], resources: needs.queues.map((name) => queueByName[name].queueArn) })]
        : []),
      ...(needs.sockets ? [manageConnections] : []),
      ...(needs.workflows ? [startWorkflows] : []),
      ...(needs.sessionCommands ? [sendCommands] : []),
    ];
  };
  const routes: Record<string, ApiRouteProps<never>> = {};
  const functions: Function[] = [];
  for (const [group, groupRouteKeys] of Object.entries(groupRoutes)) {
    const fn = new Function(stack, `Http${pascal(group)}`, {
      handler: `packages/functions/src/http/${group}.handler`,
      environment: {
        TABLE_NAME: table.tableName,
        ...secrets.environment,
        WS_MANAGEMENT_ENDPOINT: managementEndpoint,
        CORS_ORIGINS: origins,
        ...queueEnvironment,
        ...workflowEnvironment,
      },
      permissions: [table, ...grantsOf(group)],
      ...httpBuildProps(group),
    });
    secrets.grantRead(fn);
    functions.push(fn);
    for (const route of groupRouteKeys) routes[route] = { function: fn };
  }
  const api = new HttpApi(stack, "Api", {
    // Stage throttling: a flood is refused at the gateway (429) before it reaches a function.
    defaults: { throttle: { rate: API_THROTTLE.rate, burst: API_THROTTLE.burst } },
    // One CORS authority: the app's (it answers preflights with X-Request-Id and Retry-After exposed); the gateway adds none.
    cors: false,
    routes,
  });
  stack.addOutputs({ ApiUrl: api.url, DocsUrl: `${api.url}/docs` });
  return { api, functions };
}
