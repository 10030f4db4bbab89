import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AcceleratedClock } from "../../packages/core/src/provider/clock";
import { SessionWorker } from "../../packages/worker/src/session-worker";
import { createTestApi, type TestApi } from "../support/harness";
import { intradayBars, storeBars } from "../support/stored-bars";

/**
 * A replay's `speed` is steps per second of wall time (docs/mtf-and-replay.md), also when the
 * market's clock runs faster than the wall, as the embedded runtime's accelerated clock does: the
 * API here has a wall clock the test moves and a market clock 120 times faster (the runtime's
 * `now` and `marketNow`), and the worker's playing loop is ticked by hand.
 */
const DAYS = ["2024-04-01", "2024-04-02"];
const { fine } = intradayBars("AAPL.US", DAYS, 5, 1);
const MARKET_SPEED = 120;

let api: TestApi;
let token: string;
let wall = Date.now();
let pinned = false;
const wallNow = () => (pinned ? wall : Date.now());
const market = new AcceleratedClock(Date.parse("2024-06-03T14:00:00Z"), MARKET_SPEED, wallNow);
const workers: SessionWorker[] = [];

beforeAll(async () => {
  api = await createTestApi({}, { now: wallNow, marketNow: () => market.now() });
  token = (await api.createUser()).token;
  wall = Date.now();
  pinned = true;
  await storeBars(api.services, "5m", fine);
});

afterAll(async () => {
  for (const worker of workers) await worker.stop();
});

describe("replay speed", () => {
  it("plays `speed` steps per wall second while the market's clock runs 120 times faster", async () => {
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token,
      body: {
        session_name: "replayed at wall speed",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: { strategy_name: "ma_crossover", parameters: { fast_period: 3, slow_period: 8 }, symbols: ["AAPL.US"], timeframe: "5m" },
      },
    });
    const path = (suffix: string) => `/api/v1/trading/sessions/${session.id}/replay/${suffix}`;
    const status = () => api.json("GET", path("status"), 200, { token });
    const started = await api.json("POST", path("start"), 200, { token, body: { start_date: DAYS[0], end_date: DAYS[1], speed: 1 } });
    expect(started).toMatchObject({ state: "playing", speed: 1, steps: 0 });

    const worker = new SessionWorker(api.services, { marketData: await api.services.marketData(), tickMs: 1e9, refreshMs: 1e9 });
    workers.push(worker);
    await worker.start();
    const marketBefore = market.now();
    wall += 2_000;
    await worker.tick();
    // Two wall seconds are 240 seconds of the market's clock: speed 1 still means one step a wall second.
    expect(market.now() - marketBefore).toBe(2_000 * MARKET_SPEED);
    expect((await status()).steps).toBe(2);

    // The fraction of a step owed carries over to the next tick.
    wall += 500;
    await worker.tick();
    expect((await status()).steps).toBe(2);
    wall += 500;
    await worker.tick();
    expect((await status()).steps).toBe(3);

    // A new speed counts from the change, in wall seconds too.
    expect((await api.json("POST", path("control"), 200, { token, body: { action: "speed", speed: 20 } })).speed).toBe(20);
    wall += 1_500;
    await worker.tick();
    expect((await status()).steps).toBe(33);

    // Paused, the wall time that passes plays nothing; played again, it counts from the play.
    await api.json("POST", path("control"), 200, { token, body: { action: "pause" } });
    wall += 10_000;
    await worker.tick();
    expect((await status()).steps).toBe(33);
    await api.json("POST", path("control"), 200, { token, body: { action: "play" } });
    wall += 250;
    await worker.tick();
    expect((await status()).steps).toBe(38);
  });
});
