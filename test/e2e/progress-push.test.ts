import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BacktestProgressMessage, ImportProgressMessage } from "../../packages/core/src/streams";
import { ApiClient } from "../support/api-client";
import { EMBEDDED_ADMIN, EMBEDDED_CAPTCHA, startEmbedded } from "../support/embedded";
import { listen, until } from "../support/sockets";

/**
 * Long jobs push their progress over real sockets of the embedded runtime: a backtest's on its
 * session's stream (`backtest_progress`), an import's on its symbol's data-sync log stream
 * (`import_progress`), each as the AsyncAPI document describes it; polling keeps answering.
 */
let runtime: Awaited<ReturnType<typeof startEmbedded>>;

beforeAll(async () => {
  runtime = await startEmbedded();
}, 60_000);
afterAll(() => runtime?.stop());

async function admin() {
  const api = new ApiClient(runtime.base);
  api.token = (await api.expect("POST", "/api/v1/login", 200, { ...EMBEDDED_ADMIN, captcha: EMBEDDED_CAPTCHA })).access_token;
  return api;
}

describe("progress pushed on the sockets", () => {
  it("pushes a backtest's stage and progress on its session's stream until it is done, and keeps them for /updates", { timeout: 120_000 }, async () => {
    const api = await admin();
    const session = await api.expect("POST", "/api/v1/trading/sessions", 201, {
      session_name: "pushed",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: 100_000,
      config: {},
    });
    const socket = await listen(`${runtime.wsBase}/ws/trading/${session.id}?token=${api.token}`);
    const started = await api.expect("POST", "/api/v1/backtest/start", 200, {
      session_id: session.id,
      strategy_name: "ma_crossover",
      strategy_config: { fast_period: 5, slow_period: 20, execution: { timeframe: "1d" } },
      symbols: ["AAPL.US"],
      start_date: "2024-01-01",
      end_date: "2024-06-30",
      initial_capital: 100_000,
    });
    const pushed = () => socket.received.filter((message) => message.type === "backtest_progress");
    await until(() => pushed().some((message) => message.data.stage === "done"), 60_000);
    socket.ws.close(1000);

    const messages = pushed().map((message) => BacktestProgressMessage.parse(message));
    expect(messages.every((message) => message.data.backtest_id === started.backtest_id)).toBe(true);
    // Missing candles are imported first, then the bars run, then the result is final.
    expect(messages.map((message) => message.data.stage)).toContain("importing");
    expect(messages.at(-1)!.data).toMatchObject({ stage: "done", status: "completed", progress: 100 });
    const percents = messages.map((message) => message.data.progress);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    const bars = messages.at(-1)!.data.bars_processed;
    expect(bars).toBeGreaterThan(100);

    // Polling answers the same, and the session's feed holds exactly what was pushed.
    expect(await api.expect("GET", `/api/v1/backtest/${started.backtest_id}/progress`, 200)).toMatchObject({
      stage: "done",
      progress: 100,
      bars_processed: bars,
    });
    const feed = await api.expect("GET", `/api/v1/sessions/${session.id}/updates`, 200);
    expect(feed.updates.filter((update: { type: string }) => update.type === "backtest_progress")).toEqual(pushed());
  });

  it("pushes an import's progress on its symbol's log stream after each chunk and when it completes", { timeout: 120_000 }, async () => {
    const api = await admin();
    const socket = await listen(`${runtime.wsBase}/api/v1/data-sync/logs?symbol=msft.us`);
    const { task_id } = await api.expect("POST", "/api/v1/stock-import/import", 200, {
      symbol: "MSFT.US",
      start_date: "2024-03-01",
      end_date: "2024-03-29",
      periods: ["1h", "1d"],
    });
    const pushed = () => socket.received.filter((message) => message.type === "import_progress");
    await until(() => pushed().some((message) => message.data.status === "completed"), 60_000);
    socket.ws.close(1000);

    const messages = pushed().map((message) => ImportProgressMessage.parse(message));
    expect(messages.every((message) => message.data.task_id === task_id && message.data.symbol === "MSFT.US")).toBe(true);
    // One push per committed chunk (one per period here) and one at the end.
    expect(
      messages.map((message) => [
        message.data.status,
        message.data.progress,
        message.data.period_results["1h"]!.chunks_done + message.data.period_results["1d"]!.chunks_done,
      ]),
    ).toEqual([
      ["running", expect.any(Number), 1],
      ["running", 99, 2],
      ["completed", 100, 2],
    ]);
    const sequences = messages.map((message) => message.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(messages.at(-1)!.message).toContain(`Import ${task_id}: completed, 100%`);
    const status = await api.expect("GET", `/api/v1/stock-import/import/${task_id}/status`, 200);
    expect(status).toMatchObject({ status: "completed", progress: 100, data_count: messages.at(-1)!.data.data_count });
  });
});
