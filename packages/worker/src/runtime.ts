import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { contextFromEnv } from "@tp/adapters/env-context";
import { allServices } from "@tp/adapters/services";
import type { ServiceOverrides } from "@tp/adapters/compose/context";
import { loggerOf, useLogger } from "@tp/core/log";
import { stepMetrics, WORKER_METRICS } from "./metrics";
import { SessionWorker, type SessionWorkerOptions } from "./session-worker";

/**
 * The session worker's composition root (the Fargate task's; the functions have theirs in
 * `@tp/functions/runtime`, `npm start` its own in `@tp/local/runtime`): configuration from the
 * environment and keys from Secrets Manager (`@tp/adapters/env-context`, as the functions), every
 * log line through one Powertools logger, and the worker's figures as CloudWatch metrics (EMF
 * lines on stdout, which the task's `awslogs` driver sends to CloudWatch Logs).
 */
const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? "trading-platform";
export const logger = new Logger({ serviceName });
useLogger(loggerOf(logger));

/** The worker of this process, started on the services the environment configures (`overrides` and `options`: a test's market clock and lease). */
export async function startWorker(
  env: NodeJS.ProcessEnv = process.env,
  overrides: ServiceOverrides = {},
  options: Partial<SessionWorkerOptions> = {},
): Promise<SessionWorker> {
  // Worker tasks share the provider's one quote connection through the quote lease (docs/live-trading.md "One quote connection").
  const services = allServices(await contextFromEnv({ QUOTE_CONNECTION: "lease", ...env }, overrides));
  const metrics = new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? WORKER_METRICS.namespace, serviceName });
  const worker = new SessionWorker(services, { onStep: stepMetrics(metrics), ...options });
  await worker.start();
  return worker;
}
