import type { AuthConfig } from "@tp/core/auth";

/** Everything the services need from their runtime; read from the environment only in composition roots. */
export interface ServiceConfig {
  serviceName: string;
  version: string;
  stage: string;
  tableName: string;
  dynamoEndpoint?: string;
  corsOrigins: string[];
  auth: AuthConfig;
  /** Where pushes to WebSocket clients go: the API Gateway management endpoint, or loopback locally. */
  websocketManagementEndpoint?: string;
  /** How long a cached session may go without re-reading revocation and user (ms). */
  principalRecheckMs: number;
}

const number = (value: string | undefined, fallback: number) => {
  const parsed = value === undefined || value === "" ? NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : fallback;
};

/** Reads the service configuration from environment variables (documented in README.md). */
export function configFromEnv(env: NodeJS.ProcessEnv, jwtSecret: Uint8Array): ServiceConfig {
  return {
    serviceName: "trading-platform",
    version: env.SERVICE_VERSION ?? "0.1.0",
    stage: env.STAGE ?? "local",
    tableName: env.TABLE_NAME ?? "trading-platform",
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    corsOrigins: (env.CORS_ORIGINS ?? "*").split(",").map((origin) => origin.trim()).filter(Boolean),
    principalRecheckMs: number(env.AUTH_RECHECK_MS, 5000),
    websocketManagementEndpoint: env.WS_MANAGEMENT_ENDPOINT || undefined,
    auth: {
      jwtSecret,
      tokenTtlSeconds: number(env.ACCESS_TOKEN_TTL_SECONDS, 8 * 3600),
      captchaTtlSeconds: number(env.CAPTCHA_TTL_SECONDS, 300),
      maxFailures: number(env.LOGIN_MAX_FAILURES, 5),
      failureWindowSeconds: number(env.LOGIN_FAILURE_WINDOW_SECONDS, 900),
      lockSeconds: number(env.LOGIN_LOCK_SECONDS, 900),
      captchaTestCode: env.CAPTCHA_TEST_CODE || undefined,
    },
  };
}
