import { afterAll, beforeAll } from "vitest";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { type FakeLongport, startFakeLongport } from "./fake-longport/index";
import { WorkerHarness } from "./worker-harness";

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A suite of live sessions end to end (issue 35): the service composed as it runs (the API, the
 * session worker, DynamoDB Local) with LongPort selected, talking through the real `longport` SDK
 * to a fake LongPort started for the suite at `start` (its trading clock and the service's move
 * together). `fake` is set once the suite has started.
 */
export function liveSuite(start: string) {
  let fake: FakeLongport | undefined;
  // Registered before the harness's hooks: the fake is up when the services read its hosts.
  beforeAll(async () => {
    fake = await startFakeLongport({ start, quoteRateLimit: null, cash: { USD: 100_000, HKD: 0 } });
  });
  afterAll(async () => {
    await fake?.close();
  });
  const h = WorkerHarness.forSuite(start, {
    env: () => ({ LONGPORT_HTTP_URL: fake!.httpUrl, LONGPORT_QUOTE_WS_URL: fake!.quoteWsUrl, LONGPORT_TRADE_WS_URL: fake!.tradeWsUrl }),
    async setup(h) {
      const { appKey, appSecret, accessToken } = fake!.credentials;
      await h.api.json("PUT", "/api/v1/settings/data-source", 200, {
        token: await h.api.adminToken(),
        body: { type: "longport", provider_config: { app_key: appKey, app_secret: appSecret, access_token: accessToken } },
      });
    },
  });

  const suite = {
    h,
    get fake(): FakeLongport {
      return fake!;
    },

    /** Moves both clocks to `at` (the service's and the fake's trading clock). */
    clocksAt(at: number) {
      h.clock = at;
      fake!.clock.set(at);
    },

    /** A minute of AAPL.US's trades at `price` (three ticks), then both clocks past its close, and a worker step. */
    async minute(worker: SessionWorker, price: number) {
      const open = h.clock;
      for (const [offset, move] of [
        [5_000, 0],
        [25_000, 0.05],
        [50_000, -0.03],
      ] as const) {
        suite.clocksAt(open + offset);
        fake!.pushTrade("AAPL.US", { price: price + move, volume: 100 });
      }
      // The SDK builds its candlesticks from the pushes on its own threads.
      await pause(60);
      suite.clocksAt(open + 62_000);
      await worker.tick();
      suite.clocksAt(open + 60_000);
    },

    /**
     * Worker steps a wall second apart, the market's clock where it is, until `done` (at most
     * `seconds`): what the account's rate limit put off (30 trade calls per 30 s, the step never
     * waiting it out) goes out as the window allows.
     */
    async settle(worker: SessionWorker, done: () => Promise<boolean>, seconds = 45) {
      for (let i = 0; i < seconds; i++) {
        await worker.tick();
        if (await done()) return;
        await pause(1000);
      }
      throw new Error(`not settled within ${seconds} steps`);
    },

    /** The fake's order carrying an engine order id as its remark. */
    atLongport: (engineId: string) => [...fake!.account.orders.values()].find((o) => o.remark === engineId),
  };
  return suite;
}
