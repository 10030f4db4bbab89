import { DomainError } from "@tp/core/errors";
import { errorText } from "../../accounts/longport";

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

/**
 * The DomainError for a failed LongPort SDK call, so the error mapper and the api-test
 * endpoints answer it precisely instead of as a 500:
 * - `PROVIDER_ERROR` (502): LongPort answered with an error; `provider_code` is its code.
 * - `PROVIDER_AUTH_FAILED` (502): the credentials were refused.
 * - `PROVIDER_UNAVAILABLE` (503): LongPort could not be reached (network, DNS, TLS, closed socket).
 * - `PROVIDER_TIMEOUT` (504): no answer in time.
 * - `INVALID_SYMBOL` (400): the SDK refused the symbol's form.
 */
export function longportError(error: unknown, action: string): DomainError {
  if (error instanceof DomainError) return error;
  const text = errorText(error);
  const api = HTTP_API_ERROR.exec(text) ?? WS_API_ERROR.exec(text);
  if (api) {
    return new DomainError(502, "PROVIDER_ERROR", `LongPort refused ${action}: ${api[2]} (code ${api[1]})`, {
      provider: "longport",
      provider_code: Number(api[1]),
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
