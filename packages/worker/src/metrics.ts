import type { Metrics } from "@aws-lambda-powertools/metrics";
import type { WorkerStep } from "./context";

/** How often the worker's metrics are published (one EMF line each). */
export const METRICS_EVERY_MS = 60_000;

/** The namespace and names of the worker's metrics (the Worker stack scales and alarms on `WorkerLag`). */
export const WORKER_METRICS = { namespace: "TradingPlatform", lag: "WorkerLag", sessions: "WorkerSessions", sessionBars: "WorkerSessionBars" } as const;

/**
 * Collects the worker's steps and publishes, every `METRICS_EVERY_MS`: `WorkerLag` (ms, the
 * longest a bar waited between its push and the end of its feeding), `WorkerSessions` (the
 * sessions this task feeds) and `WorkerSessionBars` (session bars fed).
 */
export function stepMetrics(metrics: Metrics, wall: () => number = Date.now): (step: WorkerStep) => void {
  let lag = 0;
  let sessionBars = 0;
  let since = wall();
  return (step) => {
    lag = Math.max(lag, step.lagMs);
    sessionBars += step.sessionBars;
    if (wall() - since < METRICS_EVERY_MS) return;
    metrics.addMetric(WORKER_METRICS.lag, "Milliseconds", lag);
    metrics.addMetric(WORKER_METRICS.sessions, "Count", step.sessions);
    metrics.addMetric(WORKER_METRICS.sessionBars, "Count", sessionBars);
    metrics.publishStoredMetrics();
    lag = 0;
    sessionBars = 0;
    since = wall();
  };
}
