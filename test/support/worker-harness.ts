import { afterAll, beforeAll } from "vitest";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { createTestApi, type TestApi } from "./harness";

/**
 * Creates and starts a simulation MTF session on AAPL.US: a trend director on hourly bars over a
 * pullback executor on `executorTimeframe`, 5 % of cash an entry. Its id.
 */
export async function startMtfSession(api: TestApi, token: string, name: string, executorTimeframe: string): Promise<string> {
  const created = await api.json("POST", "/api/v1/trading/mtf/sessions", 201, {
    token,
    body: {
      session_name: name,
      mode: "simulation",
      initial_capital: "100000",
      symbols: ["AAPL.US"],
      director: { strategy_name: "trend_director", timeframe: "1h", parameters: { fast_period: 3, slow_period: 8 } },
      executors: [{ strategy_name: "pullback_executor", timeframe: executorTimeframe, parameters: { rsi_period: 5, trend_period: 10 } }],
      execution: { sizing: { model: "cash_fraction", fraction: 0.05 } },
    },
  });
  await api.json("POST", `/api/v1/trading/mtf/sessions/${created.id}/start`, 200, { token });
  return created.id;
}

/**
 * A test API on a manual market clock, with every socket push collected, and session workers the
 * test steps itself (their timers are far in the future). The clock runs on the wall until the
 * first user has logged in (tokens are issued at real time), then stays at `start` until a test
 * moves it; `pinFromStart` pins it before that.
 */
/**
 * A simulation session's configuration that trades often on AAPL.US's 1-minute bars: `ma_crossover`
 * 3/8, entries of 8 % of cash (within the default risk preset's 10 % position limit), filled on the
 * bars fed (so one engine fed the same bars gives the same events; the broker venue:
 * session-venue.test.ts).
 */
export const barsSessionConfig = {
  strategy_name: "ma_crossover",
  parameters: { fast_period: 3, slow_period: 8 },
  symbols: ["AAPL.US"],
  timeframe: "1m",
  execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
  venue: "bars",
};

export class WorkerHarness {
  api!: TestApi;
  token!: string;
  /** Every `{type, data, timestamp}` pushed to a WebSocket connection, in order. */
  readonly pushed: any[] = [];
  clock: number;
  private pinned: boolean;
  /** The workers started, oldest first. */
  readonly workers: SessionWorker[] = [];

  private constructor(start: string, pinFromStart: boolean) {
    this.clock = Date.parse(start);
    this.pinned = pinFromStart;
  }

  /** Registers the suite's setup and teardown: the API and a user are ready in the tests. */
  static forSuite(
    start: string,
    options: {
      pinFromStart?: boolean;
      /** The services' environment, read when the suite starts (a fake LongPort's hosts). */
      env?: () => NodeJS.ProcessEnv;
      setup?: (harness: WorkerHarness) => Promise<void>;
    } = {},
  ): WorkerHarness {
    const harness = new WorkerHarness(start, options.pinFromStart ?? false);
    beforeAll(async () => {
      harness.api = await createTestApi(options.env?.() ?? {}, { now: () => (harness.pinned ? harness.clock : Date.now()) });
      harness.token = (await harness.api.createUser()).token;
      harness.pinned = true;
      harness.api.services.realtime.pusher = { post: async (_connection, data) => (harness.pushed.push(JSON.parse(data)), "sent") };
      await options.setup?.(harness);
    });
    afterAll(async () => {
      for (const worker of harness.workers) await worker.stop();
    });
    return harness;
  }

  /** A started worker (it recovers running sessions); the test steps it with `tick` or `minutes`. */
  async newWorker(): Promise<SessionWorker> {
    // Every step beats (`beatMs: 0`): the tests read the heartbeat their last step wrote.
    const worker = new SessionWorker(this.api.services, { tickMs: 1e9, refreshMs: 1e9, beatMs: 0 });
    this.workers.push(worker);
    await worker.start();
    return worker;
  }

  /** A simulation session with `config` at 100,000 of starting capital, watched by a socket connection (pushes land in `pushed`) and started. */
  async startSession(name: string, config: Record<string, unknown>): Promise<any> {
    const session = await this.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: this.token,
      body: { session_name: name, trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    await this.api.services.realtime.connections.add({
      connection_id: `watcher-${session.id}`,
      topic: `session:${session.id}`,
      user_id: "x",
      connected_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 7200,
    });
    await this.api.json("POST", `/api/v1/trading/sessions/${session.id}/start`, 200, { token: this.token });
    return session;
  }

  /** Every line of a session's `/logs`, following its pages. */
  async logs(sessionId: string): Promise<any[]> {
    const lines: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.api.json(
        "GET",
        `/api/v1/trading/sessions/${sessionId}/logs?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        200,
        { token: this.token },
      );
      lines.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return lines;
  }

  /** Moves the clock a minute at a time, the worker stepping after each. */
  async minutes(worker: SessionWorker, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      this.clock += 60_000;
      await worker.tick();
    }
  }
}
