import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ApiClient } from "../support/api-client";
import { startService, type RunningService } from "../support/local-process";

/**
 * A replay through `npm start`'s runtime over real HTTP and WebSocket: 5-minute candles of three
 * days imported from the simulated provider, a session's configuration replayed over them,
 * stepped, played by the in-process worker, paused, sought back, played to the end; the socket
 * receives its events marked as the replay's. And a historical MTF session stepped bar by bar,
 * the director's bias in its outputs and status.
 */
const dataDir = mkdtempSync(join(tmpdir(), "tp-replay-"));
const env = { DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "e2e-code" };
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in time: ${JSON.stringify(value)}`);
    await sleep(200);
  }
}

describe("a replay in the embedded runtime", () => {
  it("steps, plays, pauses, seeks and finishes over HTTP, streaming its events on the session's socket", async () => {
    service = await startService(env);
    const client = new ApiClient(service.base);
    await client.loginAdmin(dataDir, "e2e-code");

    const task = await client.expect("POST", "/api/v1/stock-import/import", 200, {
      symbol: "AAPL.US",
      start_date: "2024-04-01",
      end_date: "2024-04-03",
      periods: ["5m"],
    });
    await until(
      () => client.expect("GET", `/api/v1/stock-import/import/${task.task_id}/status`, 200),
      (s: any) => s.status === "completed",
    );

    const session = await client.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "replayed",
      trading_mode: "simulation",
      asset_mode: "simulated",
      initial_capital: 100000,
      config: {
        strategy_name: "ma_crossover",
        parameters: { fast_period: 3, slow_period: 8 },
        symbols: ["AAPL.US"],
        timeframe: "5m",
        execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
      },
    });
    const messages: any[] = [];
    const socket = new WebSocket(`${service.base.replace("http://", "ws://")}/ws/trading/${session.id}?token=${client.token}`);
    socket.on("message", (data) => messages.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject)));

    const path = (suffix: string) => `/api/v1/trading/sessions/${session.id}/replay/${suffix}`;
    const started = await client.expect("POST", path("start"), 200, { start_date: "2024-04-01", end_date: "2024-04-03", speed: 10, paused: true });
    expect(started).toMatchObject({ state: "paused", steps: 0, steps_total: 234 });
    expect(await client.expect("POST", path("control"), 200, { action: "step", bars: 5 })).toMatchObject({ steps: 5 });

    await client.expect("POST", path("control"), 200, { action: "play" });
    const played = await until(
      () => client.expect("GET", path("status"), 200),
      (s: any) => s.steps >= 20,
    );
    expect(played.state).toBe("playing");
    const paused = await client.expect("POST", path("control"), 200, { action: "pause" });
    expect(paused.state).toBe("paused");
    await sleep(1_500);
    expect((await client.expect("GET", path("status"), 200)).steps).toBe(paused.steps);
    expect((await client.expect("POST", path("control"), 409, { action: "pause" })).current_status).toBe("paused");

    const back = await client.expect("POST", path("control"), 200, { action: "seek", to: "2024-04-01T14:20:00Z" });
    expect(back).toMatchObject({ steps: 10, cursor: "2024-04-01T14:20:00.000Z" });
    await client.expect("POST", path("control"), 200, { action: "speed", speed: 500 });
    await client.expect("POST", path("control"), 200, { action: "play" });
    const finished = await until(
      () => client.expect("GET", path("status"), 200),
      (s: any) => s.state === "finished",
    );
    expect(finished).toMatchObject({ steps: 234, progress: 1, cursor: "2024-04-03T20:00:00.000Z" });

    await until(
      async () => messages.length,
      (count) => count > 0,
      10_000,
    );
    expect(messages.every((m) => m.data.replay === true && m.data.run_id === `${session.id}-replay`)).toBe(true);
    socket.close(1000);
    // The session itself never ran.
    expect((await client.expect("GET", `/api/v1/trading/sessions/${session.id}`, 200)).status).toBe("created");
  }, 180_000);

  it("steps a historical MTF session bar by bar with the director's bias in its outputs", async () => {
    const client = new ApiClient(service!.base);
    await client.loginAdmin(dataDir, "e2e-code");
    const task = await client.expect("POST", "/api/v1/stock-import/import", 200, {
      symbol: "MSFT.US",
      start_date: "2024-04-01",
      end_date: "2024-04-05",
      periods: ["5m", "1h"],
    });
    await until(
      () => client.expect("GET", `/api/v1/stock-import/import/${task.task_id}/status`, 200),
      (s: any) => s.status === "completed",
    );
    const mtf = await client.expect("POST", "/api/v1/trading/mtf/sessions", 201, {
      session_name: "trend and pullbacks",
      mode: "historical",
      initial_capital: 100000,
      symbols: ["MSFT.US"],
      director: { strategy_name: "trend_director", timeframe: "1h", parameters: { fast_period: 2, slow_period: 4, band_pct: 0 } },
      executors: [{ strategy_name: "pullback_executor", timeframe: "5m", parameters: { rsi_period: 5, trend_period: 10 } }],
      start_date: "2024-04-01",
      end_date: "2024-04-05",
      execution: { sizing: { model: "cash_fraction", fraction: 0.08 } },
    });
    await client.expect("POST", `/api/v1/trading/mtf/sessions/${mtf.id}/start`, 200);
    await client.expect("POST", `/api/v1/trading/mtf/sessions/${mtf.id}/pause`, 200);
    const first = await client.expect("POST", `/api/v1/trading/mtf/sessions/${mtf.id}/step`, 200);
    const after = first.steps;
    const next = await client.expect("POST", `/api/v1/trading/mtf/sessions/${mtf.id}/step`, 200);
    expect(next.steps).toBe(after + 1);
    await client.expect("POST", `/api/v1/trading/mtf/sessions/${mtf.id}/step`, 200, { bars: 150 });
    const outputs = await client.expect("GET", `/api/v1/trading/mtf/sessions/${mtf.id}/outputs?kind=mtf&limit=500`, 200);
    const changes = outputs.items.filter((e: any) => e.type === "bias_changed");
    expect(changes.length).toBeGreaterThan(0);
    const status = await client.expect("GET", `/api/v1/trading/mtf/sessions/${mtf.id}/status`, 200);
    expect(status.bias).toEqual([{ symbol: "MSFT.US", bias: changes.at(-1).data.bias, strategy: "trend_director", timeframe: "1h" }]);
    expect(status.timeframes.map((t: any) => t.timeframe)).toEqual(["1h", "5m"]);
  }, 120_000);
});
