import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";
import { unwrap } from "./errors";
import { retryingFetch, sleep, type RetryOptions, type Sleep } from "./retry";
import { SessionStream, SymbolLogStream, type SessionMessage, type SocketOptions, type StreamHandlers, type SymbolLogMessage } from "./socket";

export type { components, operations, paths } from "./generated/api";
export type { components as socketComponents } from "./generated/sockets";
export { ApiError, isApiError, unwrap, type ErrorBody, type ErrorCode } from "./errors";
export { retryingFetch, type RetryOptions } from "./retry";
export {
  SessionStream,
  SymbolLogStream,
  type SessionMessage,
  type SocketOptions,
  type SocketStatus,
  type StreamHandlers,
  type SymbolLogMessage,
  type WebSocketConstructor,
  type WebSocketLike,
} from "./socket";

export interface TradingClientOptions extends SocketOptions {
  /** The service's address: `http://127.0.0.1:3000` (npm start) or the deployed API's URL. */
  baseUrl: string;
  /** The sockets' address when it differs from `baseUrl` (on AWS: the `WebSocketUrl` output). */
  socketUrl?: string;
  /** A token from an earlier login. */
  token?: string;
  /** The fetch to call the API with (the global one by default). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of 429 and 503 answers that carry a wait. */
  retry?: RetryOptions;
  /** How the retry waits (tests pass a fake). */
  sleep?: Sleep;
}

export type LoginResponse = components["schemas"]["LoginResponse"];
export type CaptchaResponse = components["schemas"]["CaptchaResponse"];

/**
 * The typed client of the trading-platform API: `api` is openapi-fetch over the generated
 * `paths` (every operation, its parameters, bodies, answers and error codes), with the bearer
 * token added and 429/503 retried after their `retry_after`; around it, the captcha login and
 * logout, and the two sockets with the interface's heartbeat, reconnect and catch-up rules.
 */
export function createTradingClient(options: TradingClientOptions) {
  let token = options.token;
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const socketBase = (options.socketUrl ?? baseUrl).replace(/^http/, "ws").replace(/\/+$/, "");
  const fetcher = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({ baseUrl, fetch: retryingFetch(fetcher, options.retry, options.sleep ?? sleep) });
  api.use({
    onRequest({ request }) {
      if (token && !request.headers.has("Authorization")) request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  });
  const socketOptions = (overrides: SocketOptions): SocketOptions => ({
    WebSocket: options.WebSocket,
    heartbeatMs: options.heartbeatMs,
    reconnectDelaysMs: options.reconnectDelaysMs,
    ...overrides,
  });

  return {
    /** Every operation of the API, typed: `await client.api.GET("/api/v1/backtest/{backtest_id}/progress", { params: { path: { backtest_id } } })`. */
    api,

    /** The current access token (after `login`, or the one given). */
    get token(): string | undefined {
      return token;
    },
    set token(value: string | undefined) {
      token = value;
    },

    /** A new captcha challenge: show `image` (SVG) and send its `captcha_id` with the code to `login`. */
    async captcha(): Promise<CaptchaResponse> {
      return unwrap(await api.GET("/api/v1/captcha"));
    },

    /** Logs in and keeps the token for every later call and socket. */
    async login(credentials: { username: string; password: string; captcha: string; captcha_id?: string }): Promise<LoginResponse> {
      const answer = unwrap(await api.POST("/api/v1/login", { body: credentials }));
      token = answer.access_token;
      return answer;
    },

    /** Revokes the token and forgets it. */
    async logout(): Promise<void> {
      unwrap(await api.POST("/api/v1/logout"));
      token = undefined;
    },

    /**
     * Follows a session's stream (`/ws/trading/{session_id}`, or `/ws/sessions/{id}/channels` with
     * `path: "channels"`): every message once, in order, across reconnects. `since`: start after
     * this timestamp (by default, after what the session's feed holds when it starts).
     */
    async followSession(
      sessionId: string,
      handlers: StreamHandlers<SessionMessage> & { onPong?: () => void },
      overrides: SocketOptions & { since?: string; path?: "trading" | "channels" } = {},
    ): Promise<SessionStream> {
      const id = encodeURIComponent(sessionId);
      const path = overrides.path === "channels" ? `/ws/sessions/${id}/channels` : `/ws/trading/${id}`;
      const stream = new SessionStream(
        {
          // Batches: a session's messages of one step in one frame (the stream hands them on one by one).
          url: () => `${socketBase}${path}?token=${encodeURIComponent(token ?? "")}&batch=true`,
          updates: async (since) =>
            unwrap(await api.GET("/api/v1/sessions/{session_id}/updates", { params: { path: { session_id: sessionId }, query: { since, limit: 1000 } } })),
        },
        handlers,
        { ...socketOptions(overrides), since: overrides.since },
      );
      return stream.start();
    },

    /** Follows a symbol's data-sync log stream (log lines and `import_progress`), reconnecting by the same rules. */
    followSymbolLogs(symbol: string, handlers: StreamHandlers<SymbolLogMessage> & { onPong?: () => void }, overrides: SocketOptions = {}): SymbolLogStream {
      return new SymbolLogStream(() => `${socketBase}/api/v1/data-sync/logs?symbol=${encodeURIComponent(symbol)}`, handlers, socketOptions(overrides)).start();
    },
  };
}

export type TradingClient = ReturnType<typeof createTradingClient>;
