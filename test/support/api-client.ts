import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A minimal HTTP client of a running service (the embedded runtime or a deployed stage), for end-to-end tests and benchmarks. */
export class ApiClient {
  token: string | undefined;

  constructor(readonly base: string) {}

  async call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(this.base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
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
    this.token = (await this.expect("POST", "/api/v1/login", 200, { username: "admin", password, captcha })).access_token;
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
