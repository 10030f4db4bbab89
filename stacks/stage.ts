import { isProductionStage } from "../packages/adapters/src/config";

/**
 * The origins browsers may call the API from. A production stage must name them (`CORS_ORIGINS`,
 * comma-separated): it refuses to synthesise otherwise, rather than answer every origin.
 */
export function corsOrigins(stage: string): string {
  const configured = process.env.CORS_ORIGINS?.trim();
  if (configured) return configured;
  if (isProductionStage(stage)) throw new Error(`Stage ${stage} is a production stage: set CORS_ORIGINS to the front ends' origins (comma-separated) before deploying`);
  return "*";
}
