import { isProductionStage } from "../packages/adapters/src/config";

/**
 * The origins browsers may call the API from. A production stage must name them (`CORS_ORIGINS`,
 * comma-separated): it refuses to synthesise otherwise, rather than answer every origin.
 */
export function corsOrigins(stage: string): string {
  const configured = process.env.CORS_ORIGINS?.trim();
  if (configured) return configured;
  if (isProductionStage(stage))
    throw new Error(`Stage ${stage} is a production stage: set CORS_ORIGINS to the front ends' origins (comma-separated) before deploying`);
  return "*";
}

/**
 * Backtests of one sweep that run at once (the sweep machine's Distributed Map `MaxConcurrency`,
 * answered by its Plan task): a production stage 50, others 10, `SWEEP_MAX_CONCURRENCY` at deploy
 * time overriding. Each running backtest is a chunk Lambda at a time: this bounds a sweep's share
 * of the account's concurrency (docs/operations.md "Sweeps").
 */
export function sweepMaxConcurrency(stage: string): number {
  const configured = Number(process.env.SWEEP_MAX_CONCURRENCY);
  if (Number.isInteger(configured) && configured > 0) return configured;
  return isProductionStage(stage) ? 50 : 10;
}
