import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { Context } from "aws-lambda";
import { instrumentAwsClients } from "@tp/adapters/aws-clients";
import { loggerOf, useLogger } from "@tp/core/log";

/**
 * Powertools for AWS Lambda in every function: the logger stamps each line with the request id,
 * the X-Ray trace id and cold start; metrics go out as CloudWatch EMF (namespace
 * `TradingPlatform`, dimension `service`); the tracer wraps every AWS SDK client the adapters
 * create. Outside Lambda the rest still prints, so tests see the same lines.
 */
const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? "trading-platform";
export const logger = new Logger({ serviceName });
// Every `log` call of the domain, the adapters and the API goes to this logger (core/src/log.ts):
// in Lambda each line carries the invocation's context; the worker and `npm start` print the same fields.
useLogger(loggerOf(logger));
export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? "TradingPlatform", serviceName });

/**
 * The tracer, in Lambda only. Loading the X-Ray SDK enables an async hook that tracks every
 * promise (about 13 times the cost of a bare `await`): the embedded runtime, which imports the
 * functions' handlers, and the Fargate session worker have no X-Ray and must not pay for it
 * (docs/benchmarks-journal.md, "HTTP").
 */
export const tracer =
  process.env.AWS_LAMBDA_FUNCTION_NAME === undefined ? undefined : new (await import("@aws-lambda-powertools/tracer")).Tracer({ serviceName });

if (tracer) instrumentAwsClients((client) => tracer.captureAWSv3Client(client as never) as typeof client);

/**
 * A Lambda handler wrapped: context on every log line, a cold-start metric, `Invocations` and
 * `InvocationErrors` per function kind, the metrics flushed at the end of each invocation.
 */
export function observed<E, R>(kind: string, handler: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
  return async (event, context) => {
    logger.addContext(context ?? ({} as Context));
    const traceId = process.env._X_AMZN_TRACE_ID;
    if (traceId) logger.appendKeys({ xray_trace_id: traceId });
    metrics.captureColdStartMetric();
    metrics.addDimension("kind", kind);
    metrics.addMetric("Invocations", MetricUnit.Count, 1);
    try {
      return await handler(event, context);
    } catch (error) {
      metrics.addMetric("InvocationErrors", MetricUnit.Count, 1);
      logger.error("Invocation failed", error as Error);
      throw error;
    } finally {
      metrics.publishStoredMetrics();
    }
  };
}
