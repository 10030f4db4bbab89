import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTradingClient, type TradingClient } from "../../packages/client/src/index";

/**
 * The e2e tests' and benchmarks' HTTP client of a running service (the embedded runtime or a
 * deployed stage): a thin layer over the typed client (`packages/client`) for calls whose path
 * is built by the test, answering the status and the parsed body, success or error alike.
 */
export class ApiClient {
  readonly client: TradingClient;

  constructor(readonly base: string) {
    this.client = createTradingClient({ baseUrl: base });
  }

  get token(): string | undefined {
    return this.client.token;
  }
  set token(value: string | undefined) {
    this.client.token = value;
  }

  async call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    // A path the test filled in itself: the untyped entry of the same client (token, retries, JSON).
    const request = this.client.api.request as unknown as (
      method: string,
      url: string,
      init: { body?: unknown },
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await request(method.toLowerCase(), path, body === undefined ? {} : { body });
    return { status: response.status, body: (error ?? data) as T };
  }

  /** The body of a call that must answer `status`. */
  async expect<T = any>(method: string, path: string, status: number, body?: unknown): Promise<T> {
    const result = await this.call<T>(method, path, body);
    if (result.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${result.status}: ${JSON.stringify(result.body)}`);
    return result.body;
  }

  /** Logs in as the administrator whose generated password the runtime kept under `dataDir`. */
  async loginAdmin(dataDir: string, captcha: string): Promise<void> {
    const password = readFileSync(join(dataDir, "admin-password.txt"), "utf8").trim();
    await this.client.login({ username: "admin", password, captcha });
  }

  /** Polls a backtest's progress until `done` holds (or `timeoutMs` passes). */
  async waitForBacktest(id: string, done: (progress: any) => boolean, timeoutMs = 120_000): Promise<any> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const progress = await this.expect("GET", `/api/v1/backtest/${id}/progress`, 200);
      if (done(progress)) return progress;
      if (Date.now() > until) throw new Error(`backtest ${id} did not get there in time: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Creates a backtest session and starts a backtest on it; the backtest id. */
  async startBacktest(request: Record<string, unknown>, capital = 100_000): Promise<{ sessionId: string; backtestId: string }> {
    const session = await this.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "backtest",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: capital,
      config: {},
    });
    const started = await this.expect("POST", "/api/v1/backtest/start", 200, { session_id: session.id, initial_capital: capital, ...request });
    return { sessionId: session.id, backtestId: started.backtest_id };
  }
}

/** One call to the service at `base` with `token` (or none), for tests that act as several users in turn. */
export function callAs<T = any>(base: string, token: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const client = new ApiClient(base);
  client.token = token;
  return client.call<T>(method, path, body);
}
