import { Api as HttpApi, Function, use, type ApiRouteProps, type StackContext } from "sst/constructs";
import { groupRoutes } from "../packages/api/src/routes";
import { Queues } from "./Queues";
import { Realtime } from "./Realtime";
import { Storage } from "./Storage";
import { Workflows } from "./Workflows";
import { httpBuildProps } from "./functions";

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());

/** Steady requests per second and burst the HTTP API's stage accepts before answering 429. */
export const API_THROTTLE = { rate: 500, burst: 1000 };

/** The HTTP API: one function per endpoint group, each with the table and the token secret. */
export function Api({ stack }: StackContext) {
  const { table, secrets } = use(Storage);
  const { managementEndpoint, manageConnections } = use(Realtime);
  const { queues, queueEnvironment } = use(Queues);
  const { workflowEnvironment, startWorkflows } = use(Workflows);
  const routes: Record<string, ApiRouteProps<never>> = {};
  const functions: Function[] = [];
  for (const [group, groupRouteKeys] of Object.entries(groupRoutes)) {
    const fn = new Function(stack, `Http${pascal(group)}`, {
      handler: `packages/functions/src/http/${group}.handler`,
      environment: {
        TABLE_NAME: table.tableName,
        ...secrets.environment,
        WS_MANAGEMENT_ENDPOINT: managementEndpoint,
        CORS_ORIGINS: process.env.CORS_ORIGINS ?? "*",
        ...queueEnvironment,
        ...workflowEnvironment,
      },
      permissions: [table, manageConnections, ...queues, startWorkflows],
      ...httpBuildProps(group),
    });
    secrets.grantRead(fn);
    functions.push(fn);
    for (const route of groupRouteKeys) routes[route] = { function: fn };
  }
  const api = new HttpApi(stack, "Api", {
    // Stage throttling: a flood is refused at the gateway (429) before it reaches a function.
    defaults: { throttle: { rate: API_THROTTLE.rate, burst: API_THROTTLE.burst } },
    cors: { allowOrigins: (process.env.CORS_ORIGINS ?? "*").split(","), allowHeaders: ["Authorization", "Content-Type"] },
    routes,
  });
  stack.addOutputs({ ApiUrl: api.url, DocsUrl: `${api.url}/docs` });
  return { api, functions };
}
