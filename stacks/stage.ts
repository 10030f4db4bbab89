/** Stages treated as production: data kept on removal, deletion protection, an explicit CORS origin list. */
export const isProduction = (stage: string) => stage === "prod" || stage === "production";

/**
 * The origins browsers may call the API from. A production stage must name them (`CORS_ORIGINS`,
 * comma-separated): it refuses to synthesise otherwise, rather than answer every origin.
 */
export function corsOrigins(stage: string): string {
  const configured = process.env.CORS_ORIGINS?.trim();
  if (configured) return configured;
  if (isProduction(stage)) throw new Error(`Stage ${stage} is a production stage: set CORS_ORIGINS to the front ends' origins (comma-separated) before deploying`);
  return "*";
}
