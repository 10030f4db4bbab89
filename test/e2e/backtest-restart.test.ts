import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiClient } from "../support/api-client";
import { startService, type RunningService } from "../support/local-process";

/**
 * A newcomer's backtest through `npm start`'s runtime: ma_crossover on AAPL.US in 2024 (the
 * minute candles of its first quarter imported from the simulated provider first), paused, the runtime killed with
 * SIGKILL and started again, resumed; and a second run killed mid-chunk. Both finish with the
 * fills of a run never interrupted. Small chunks make the runs long enough to interrupt.
 */
const dataDir = mkdtempSync(join(tmpdir(), "tp-backtest-restart-"));
const env = { DATA_DIR: dataDir, CAPTCHA_TEST_CODE: "e2e-code", BACKTEST_CHUNK_BARS: "2000" };
let service: RunningService | undefined;

afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const request = {
  strategy_name: "ma_crossover",
  strategy_config: { fast_period: 20, slow_period: 60, execution: { timeframe: "1m" } },
  symbols: ["AAPL.US"],
  start_date: "2024-01-01",
  end_date: "2024-03-31",
};

async function restart(): Promise<ApiClient> {
  service = await startService(env);
  const client = new ApiClient(service.base);
  await client.loginAdmin(dataDir, "e2e-code");
  return client;
}

const kill9 = (running: RunningService): Promise<void> => running.crash();

/** The fills without their order ids (which name the run). */
const fillsOf = (result: { fills: Record<string, unknown>[] }) => result.fills.map(({ order_id: _id, ...fill }) => fill);

describe("a backtest across restarts of the embedded runtime", () => {
  it("pauses, survives kill -9, resumes, and matches an uninterrupted run; a run killed mid-chunk also finishes the same", async () => {
    let client = await restart();
    const paused = await client.startBacktest(request);
    const running = await client.waitForBacktest(paused.backtestId, (p) => p.status === "running" && p.bars_processed > 0);
    expect(running.stage).toBe("running");
    await client.expect("POST", `/api/v1/backtest/${paused.backtestId}/pause`, 200);
    const atPause = await client.waitForBacktest(paused.backtestId, (p) => p.status === "paused");
    expect(atPause.is_paused).toBe(true);
    expect(atPause.progress).toBeGreaterThan(0);
    expect(atPause.progress).toBeLessThan(100);

    const killed = await client.startBacktest(request);
    await client.waitForBacktest(killed.backtestId, (p) => p.bars_processed > 0);
    await kill9(service!);

    client = await restart();
    // The paused backtest stays paused at its checkpoint; the killed one was restarted at boot.
    const afterRestart = await client.expect("GET", `/api/v1/backtest/${paused.backtestId}/progress`, 200);
    expect(afterRestart).toMatchObject({ status: "paused", bars_processed: atPause.bars_processed });
    const session = await client.expect("GET", `/api/v1/trading/sessions/${paused.sessionId}`, 200);
    expect(session.status).toBe("paused");
    await client.expect("POST", `/api/v1/backtest/${paused.backtestId}/resume`, 200);

    const reference = await client.startBacktest(request);
    for (const { backtestId } of [paused, killed, reference]) {
      await client.waitForBacktest(backtestId, (p) => p.status === "completed", 240_000);
    }
    const [a, b, c] = await Promise.all(
      [paused, killed, reference].map(({ backtestId }) => client.expect("GET", `/api/v1/backtest/${backtestId}/result`, 200)),
    );
    expect(c.fills.length).toBeGreaterThan(10);
    expect(fillsOf(a)).toEqual(fillsOf(c));
    expect(fillsOf(b)).toEqual(fillsOf(c));
    expect(a.final_capital).toBe(c.final_capital);
    expect(b.final_capital).toBe(c.final_capital);
    expect(a.bars_processed).toBe(c.bars_processed);
    const completed = await client.expect("GET", `/api/v1/trading/sessions/${paused.sessionId}`, 200);
    expect(completed).toMatchObject({ status: "completed", final_capital: a.final_capital });
  }, 600_000);
});
