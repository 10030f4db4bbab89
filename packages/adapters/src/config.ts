import { hkdfSync } from "node:crypto";
import { API_KEY_RATE, type AuthConfig } from "@tp/core/auth";
import { AUDIT_RETENTION_DAYS } from "@tp/core/audit";
import { QueueNames, SESSION_COMMANDS_QUEUE, queueUrlVariable, type QueueName } from "@tp/core/jobs";
import { CANDLE_CACHE_CANDLES } from "./stores/candle-cache";
import { BACKTEST_CHUNK_BARS, SWEEP_MAX_CONCURRENCY, SWEEP_RUN_TTL_DAYS, WorkflowNames, stateMachineArnVariable, type WorkflowName } from "@tp/core/workflows";

/** Everything the services need from their runtime; read from the environment only in composition roots. */
/** How a process reaches the provider's one quote connection (`ServiceConfig.quoteConnection`). */
export type QuoteConnectionMode = "own" | "relay" | "lease";

/** LongPort's hosts as a broker configuration names them (any of them). */
export type LongportHosts = Partial<Record<"http_url" | "quote_ws_url" | "trade_ws_url", string>>;

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
  /** SQS queue URLs by queue name (`QUEUE_URL_STOCK_IMPORT`, ...); queues without one use the table-backed local queue. */
  queueUrls: Partial<Record<QueueName, string>>;
  /** The session worker's FIFO command queue (`QUEUE_URL_SESSION_COMMANDS`); without it the table-backed local queue. */
  sessionCommandsUrl?: string;
  /** Step Functions state machine ARNs by workflow name (`STATE_MACHINE_ARN_BACKTEST`, ...); without them the runtime's local runner runs workflows. */
  stateMachineArns: Partial<Record<WorkflowName, string>>;
  /** How long a cached session may go without re-reading revocation and user (ms). */
  principalRecheckMs: number;
  /** AES-256 key (32 bytes) sealing broker credentials at rest. */
  encryptionKey: Uint8Array;
  /** How long a broker connection test or account read may take (ms). */
  brokerTimeoutMs: number;
  /** Hosts an administrator allowed broker connection tests to reach although they are private (BROKER_ALLOWED_HOSTS). */
  brokerAllowedHosts: string[];
  /** Exchange rates per USD for asset overviews, e.g. `HKD=7.8,CNY=7.1` (reference values otherwise). */
  fxRatesPerUsd?: string;
  /** Cash of a new paper-broker account, e.g. `USD=1000000,HKD=1000000` (the default). */
  paperInitialCash?: string;
  /** How long an instance trusts its cached provider selection before reading the settings again (ms). */
  providerSettingsTtlMs: number;
  /** How long a LongPort connection or call may take (ms). */
  providerTimeoutMs: number;
  /**
   * LongPort's hosts (the SDK's own `LONGPORT_HTTP_URL`, `LONGPORT_QUOTE_WS_URL`,
   * `LONGPORT_TRADE_WS_URL`), when set: every SDK `Config` the service builds uses them, unless a
   * broker's configuration names its own (docs/live-trading.md "Hosts").
   */
  longportHosts: LongportHosts;
  /**
   * Whether this process opens the provider's quote connection, where the provider allows one
   * per account (LongPort; docs/live-trading.md "One quote connection"): `own` (the embedded
   * runtime, one process), `relay` (the functions: they ask the worker task that holds it through
   * the table), `lease` (the worker tasks: the one holding the quote lease opens it, the others relay).
   */
  quoteConnection: QuoteConnectionMode;
  /** Bars one backtest chunk feeds the engine at most before it checkpoints. */
  backtestChunkBars: number;
  /** Backtests of a sweep run at once (the sweep machine's Map; the Workflows stack sets it per stage). */
  sweepMaxConcurrency: number;
  /** Days a sweep's runs are kept before they expire (SWEEP_RUN_TTL_DAYS, default 30; 0: for ever; docs/operations.md "Sweeps"). */
  sweepRunTtlDays?: number;
  /** Regular-session candles a process keeps decoded for backtests' reads (`CandleCache`; 0: none). */
  candleCacheCandles: number;
  /** Days an audit entry is kept (AUDIT_RETENTION_DAYS, default 400: the item's ttl). */
  auditRetentionDays?: number;
}

/**
 * The broker-credential key: given by the runtime (a key file, a secret), else ENCRYPTION_KEY
 * (64 hex characters), else derived from the JWT secret so a bare configuration still encrypts.
 */
function encryptionKeyFrom(env: NodeJS.ProcessEnv, jwtSecret: Uint8Array, given?: Uint8Array): Uint8Array {
  if (given) return given;
  if (env.ENCRYPTION_KEY) {
    if (!/^[0-9a-fA-F]{64}$/.test(env.ENCRYPTION_KEY)) throw new Error("ENCRYPTION_KEY must be 64 hex characters (32 bytes)");
    return Buffer.from(env.ENCRYPTION_KEY, "hex");
  }
  return new Uint8Array(hkdfSync("sha256", jwtSecret, new Uint8Array(0), "broker-config-encryption", 32));
}

/** Stages treated as production: data kept, deletion protection, explicit CORS origins, no captcha test code. */
export const isProductionStage = (stage: string) => stage === "prod" || stage === "production";

/** Production stages never accept a captcha test code: a deployment that sets one fails to start. */
function captchaTestCodeFrom(env: NodeJS.ProcessEnv): string | undefined {
  const code = env.CAPTCHA_TEST_CODE?.trim() || undefined;
  if (code && isProductionStage(env.STAGE ?? "")) throw new Error(`CAPTCHA_TEST_CODE is set on production stage ${env.STAGE}: refusing to start`);
  return code;
}

const number = (value: string | undefined, fallback: number) => {
  const parsed = value === undefined || value === "" ? NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : fallback;
};

/** One variable per name (`QUEUE_URL_<NAME>`), keeping the names that have a value. */
function perName<N extends string>(env: NodeJS.ProcessEnv, names: readonly N[], variable: (name: N) => string): Partial<Record<N, string>> {
  return Object.fromEntries(names.map((name) => [name, env[variable(name)]]).filter(([, value]) => value));
}

/** Reads the service configuration from environment variables (documented in README.md). */
export function configFromEnv(env: NodeJS.ProcessEnv, jwtSecret: Uint8Array, encryptionKey?: Uint8Array): ServiceConfig {
  return {
    serviceName: "trading-platform",
    version: env.SERVICE_VERSION ?? "0.1.0",
    stage: env.STAGE ?? "local",
    tableName: env.TABLE_NAME ?? "trading-platform",
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    corsOrigins: (env.CORS_ORIGINS ?? "*")
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean),
    principalRecheckMs: number(env.AUTH_RECHECK_MS, 5000),
    queueUrls: perName(env, QueueNames, queueUrlVariable),
    sessionCommandsUrl: env[queueUrlVariable(SESSION_COMMANDS_QUEUE)] || undefined,
    stateMachineArns: perName(env, WorkflowNames, stateMachineArnVariable),
    websocketManagementEndpoint: env.WS_MANAGEMENT_ENDPOINT || undefined,
    encryptionKey: encryptionKeyFrom(env, jwtSecret, encryptionKey),
    brokerTimeoutMs: number(env.BROKER_TIMEOUT_MS, 10_000),
    brokerAllowedHosts: (env.BROKER_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean),
    fxRatesPerUsd: env.FX_RATES_PER_USD || undefined,
    paperInitialCash: env.PAPER_INITIAL_CASH || undefined,
    providerSettingsTtlMs: number(env.PROVIDER_SETTINGS_TTL_MS, 5000),
    providerTimeoutMs: number(env.PROVIDER_TIMEOUT_MS, 10_000),
    quoteConnection: env.QUOTE_CONNECTION === "relay" || env.QUOTE_CONNECTION === "lease" ? env.QUOTE_CONNECTION : "own",
    longportHosts: {
      ...(env.LONGPORT_HTTP_URL ? { http_url: env.LONGPORT_HTTP_URL } : {}),
      ...(env.LONGPORT_QUOTE_WS_URL ? { quote_ws_url: env.LONGPORT_QUOTE_WS_URL } : {}),
      ...(env.LONGPORT_TRADE_WS_URL ? { trade_ws_url: env.LONGPORT_TRADE_WS_URL } : {}),
    },
    backtestChunkBars: number(env.BACKTEST_CHUNK_BARS, BACKTEST_CHUNK_BARS),
    sweepMaxConcurrency: number(env.SWEEP_MAX_CONCURRENCY, SWEEP_MAX_CONCURRENCY),
    sweepRunTtlDays: number(env.SWEEP_RUN_TTL_DAYS, SWEEP_RUN_TTL_DAYS),
    candleCacheCandles: number(env.CANDLE_CACHE_CANDLES, CANDLE_CACHE_CANDLES),
    auth: {
      jwtSecret,
      tokenTtlSeconds: number(env.ACCESS_TOKEN_TTL_SECONDS, 8 * 3600),
      captchaTtlSeconds: number(env.CAPTCHA_TTL_SECONDS, 300),
      maxFailures: number(env.LOGIN_MAX_FAILURES, 5),
      failureWindowSeconds: number(env.LOGIN_FAILURE_WINDOW_SECONDS, 900),
      lockSeconds: number(env.LOGIN_LOCK_SECONDS, 900),
      captchaTestCode: captchaTestCodeFrom(env),
      trustedAddresses: (env.LOGIN_TRUSTED_ADDRESSES ?? "")
        .split(",")
        .map((address) => address.trim())
        .filter(Boolean),
      apiKeyRatePerSecond: number(env.API_KEY_RATE_PER_SECOND, API_KEY_RATE.perSecond),
      apiKeyBurst: number(env.API_KEY_BURST, API_KEY_RATE.burst),
    },
    auditRetentionDays: number(env.AUDIT_RETENTION_DAYS, AUDIT_RETENTION_DAYS),
  };
}
