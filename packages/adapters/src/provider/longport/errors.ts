import { DomainError } from "@tp/core/errors";
import { errorText } from "./sdk";

/** Seconds a client should wait before retrying after LongPort could not be reached. */
const RETRY_AFTER_SECONDS = 5;

// Shapes of the SDK's error texts (the Node binding passes the Rust error's Display):
// HTTP API failures, WebSocket response failures, and transport failures.
const HTTP_API_ERROR = /openapi error: code=(-?\d+):\s*(.*)$/;
const WS_API_ERROR = /code:\s*(\d+),\s*msg:\s*"((?:[^"\\]|\\.)*)"/;
const INVALID_SYMBOL = /invalid security symbol:\s*(\S+)/;
const CREDENTIALS = /invalid api key|invalid access token/i;
const TIMEOUT = /timeout|timed out|did not answer within/i;
const TRANSPORT = /error sending request|client error \(Connect\)|dns error|connection (closed|refused|reset)|Client is closed|websocket|tls|network/i;
/** LongPort allows one long quote connection per account; a second is refused with this text. */
const CONNECTION_LIMIT = /connections limitation is hit/i;
/** A status without LongPort's JSON body (what a proxy in front of it answers); the SDK retried a bare 429 five times first. */
const BARE_STATUS = /status error: (\d{3})/;

/** LongPort's common API error codes (its "Error Codes" page) the service answers by their own status (docs/live-trading.md "Errors"). */
export const LongportCodes = {
  /** Too many requests from one address (429001) or to one API (429002). */
  rateLimited: [429001, 429002],
  /** The access token has expired (401003): the provider settings' token must be refreshed. */
  tokenExpired: [401003],
  /** The same request again without a new `X-Timestamp` (403202). */
  duplicate: [403202],
  /** The request's signature, the app key or the caller's address refused (403201, 403203, 403205): the service's configuration, not the order. */
  credentials: [403201, 403203, 403205],
  /** LongPort's own failure (500000): whether a sent order was taken is unknown. */
  internal: [500000],
} as const;

/** The calls that change the account: an API error answering one is LongPort refusing it. */
const MUTATIONS = new Set(["submitOrder", "replaceOrder", "cancelOrder"]);

/** Seconds to wait after LongPort's rate limit, its connection limit or an expired token. */
const RATE_RETRY_SECONDS = 2;
const TOKEN_RETRY_SECONDS = 60;

const has = (codes: readonly number[], code: number) => codes.includes(code);

/**
 * The DomainError for a failed LongPort SDK call, so the error mapper, the api-test endpoints and
 * the session worker answer it precisely instead of as a 500 (docs/live-trading.md "Errors"):
 * - `PROVIDER_RATE_LIMITED` (429, `retry_after`): LongPort's rate limit (429001, 429002);
 * - `PROVIDER_TOKEN_EXPIRED` (503, `retry_after`): the access token expired (401003);
 * - `PROVIDER_DUPLICATE_REQUEST` (409): LongPort saw the request already;
 * - `PROVIDER_CONNECTION_LIMIT` (503, `retry_after`): the account's one quote connection is open elsewhere;
 * - `PROVIDER_REFUSED` (422): LongPort refused an order, its replacement or its cancel (`provider_code`, its message);
 * - `PROVIDER_ERROR` (502): LongPort answered another call with an error, or failed itself (500000); `provider_code` is its code;
 * - `PROVIDER_AUTH_FAILED` (502): the credentials, the signature or the caller's address were refused;
 * - `PROVIDER_UNAVAILABLE` (503): LongPort could not be reached (network, DNS, TLS, closed socket);
 * - `PROVIDER_TIMEOUT` (504): no answer in time (whether an order was taken is unknown);
 * - `INVALID_SYMBOL` (400): the SDK refused the symbol's form.
 */
export function longportError(error: unknown, action: string): DomainError {
  if (error instanceof DomainError) return error;
  const text = errorText(error);
  const api = HTTP_API_ERROR.exec(text) ?? WS_API_ERROR.exec(text);
  if (api) {
    const code = Number(api[1]);
    const message = api[2]!;
    const extra = { provider: "longport", provider_code: code };
    if (has(LongportCodes.rateLimited, code)) {
      return new DomainError(429, "PROVIDER_RATE_LIMITED", `LongPort's rate limit refused ${action}: ${message} (code ${code})`, {
        ...extra,
        retry_after: RATE_RETRY_SECONDS,
      });
    }
    if (has(LongportCodes.tokenExpired, code)) {
      return new DomainError(
        503,
        "PROVIDER_TOKEN_EXPIRED",
        `LongPort's access token has expired (code ${code}): refresh it (POST /api/v1/settings/provider/refresh-token)`,
        {
          ...extra,
          retry_after: TOKEN_RETRY_SECONDS,
        },
      );
    }
    if (has(LongportCodes.duplicate, code)) {
      return new DomainError(409, "PROVIDER_DUPLICATE_REQUEST", `LongPort saw ${action} already: ${message} (code ${code})`, extra);
    }
    if (has(LongportCodes.credentials, code)) {
      return new DomainError(502, "PROVIDER_AUTH_FAILED", `LongPort refused the credentials for ${action}: ${message} (code ${code})`, extra);
    }
    if (CONNECTION_LIMIT.test(message)) return connectionLimit(action, text);
    if (MUTATIONS.has(action) && !has(LongportCodes.internal, code))
      return new DomainError(422, "PROVIDER_REFUSED", `LongPort refused ${action}: ${message} (code ${code})`, { ...extra, provider_message: message });
    return new DomainError(502, "PROVIDER_ERROR", `LongPort refused ${action}: ${message} (code ${code})`, extra);
  }
  if (CONNECTION_LIMIT.test(text)) return connectionLimit(action, text);
  const bare = BARE_STATUS.exec(text);
  if (bare?.[1] === "429") {
    return new DomainError(429, "PROVIDER_RATE_LIMITED", `LongPort's rate limit refused ${action}: ${text}`, {
      provider: "longport",
      retry_after: RATE_RETRY_SECONDS,
    });
  }
  if (bare && bare[1]!.startsWith("5")) {
    return new DomainError(503, "PROVIDER_UNAVAILABLE", `LongPort is unavailable (${action}): ${text}`, {
      provider: "longport",
      retry_after: RETRY_AFTER_SECONDS,
    });
  }
  const symbol = INVALID_SYMBOL.exec(text);
  if (symbol) return new DomainError(400, "INVALID_SYMBOL", `LongPort does not accept the symbol '${symbol[1]}'`, { provider: "longport" });
  if (CREDENTIALS.test(text)) {
    return new DomainError(502, "PROVIDER_AUTH_FAILED", `LongPort refused the credentials for ${action}: ${text}`, { provider: "longport" });
  }
  if (TIMEOUT.test(text)) {
    return new DomainError(504, "PROVIDER_TIMEOUT", `LongPort did not answer ${action} in time: ${text}`, { provider: "longport" });
  }
  if (TRANSPORT.test(text)) {
    return new DomainError(503, "PROVIDER_UNAVAILABLE", `LongPort is unreachable (${action}): ${text}`, {
      provider: "longport",
      retry_after: RETRY_AFTER_SECONDS,
    });
  }
  return new DomainError(502, "PROVIDER_ERROR", `LongPort ${action} failed: ${text}`, { provider: "longport" });
}

const connectionLimit = (action: string, text: string) =>
  new DomainError(503, "PROVIDER_CONNECTION_LIMIT", `LongPort refused a second quote connection for this account (${action}): ${text}`, {
    provider: "longport",
    retry_after: RATE_RETRY_SECONDS,
  });
