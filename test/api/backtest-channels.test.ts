import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CandleBatches } from "../../packages/core/src/candles/candle-batch";
import { referenceCase } from "../../packages/core/src/engine/testing/reference";
import { backtestHandlers } from "../../packages/functions/src/workflow/backtest";
import { LocalWorkflowRunner } from "../../packages/local/src/workflow-runner";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * A backtest on a multi-channel session (docs/backtests.md): `multi_channel` runs the session's
 * channels; a strategy of the request's own runs in a run of its own and leaves the channels
 * alone. Every view of the session answers afterwards, whichever ran last.
 */
let api: TestApi;
let runner: LocalWorkflowRunner;

beforeAll(async () => {
  runner = new LocalWorkflowRunner({ backtest: () => backtestHandlers(() => Promise.resolve(api.services)) });
  api = await createTestApi({}, { workflows: runner });
  const candles = referenceCase("AAPL.US").bars.map((b) => ({ ...b, timestamp: b.timestamp / 1000, turnover: 0, trade_session: "Intraday" as const }));
  await api.services.candles.upsert("AAPL.US", "1d", CandleBatches.fromCandles(candles));
});
afterAll(() => runner.stop());

const channels = [
  {
    channel_id: "aggressive",
    channel_type: "AGGRESSIVE",
    capital_allocation: 0.4,
    strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 5, slow_period: 20 } }],
  },
  {
    channel_id: "steady",
    channel_type: "CONSERVATIVE",
    capital_allocation: 0.6,
    strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 10, slow_period: 30 } }],
  },
];
const views = (id: string) => [
  `/api/v1/sessions/${id}/summary`,
  `/api/v1/sessions/${id}/channels`,
  `/api/v1/sessions/${id}/channels/aggressive`,
  `/api/v1/sessions/${id}/channels/aggressive/metrics`,
  `/api/v1/sessions/${id}/channels/breakdown`,
  `/api/v1/sessions/${id}/channels/steady/risk-report`,
  `/api/v1/sessions/${id}/risk-reports`,
  `/api/v1/sessions/${id}/alerts`,
  `/api/v1/channels/sessions/${id}/positions`,
  `/api/v1/channels/sessions/${id}/performance`,
  `/api/v1/channels/sessions/${id}/risk-status`,
  `/api/v1/channels/sessions/${id}/metrics`,
  `/api/v1/trading/sessions/${id}/orders`,
  `/api/v1/trading/sessions/${id}/performance`,
];

describe("a backtest on a multi-channel session", () => {
  it("runs its own strategy apart from the session's channels, runs the channels with multi_channel, and every view answers after each", async () => {
    const user = await api.createUser();
    const as = (method: string, path: string, status: number, body?: unknown) => api.json(method, path, status, { token: user.token, body });
    const session = await as("POST", "/api/v1/trading/sessions", 201, {
      session_name: "two channels",
      trading_mode: "backtest",
      asset_mode: "simulated",
      initial_capital: "100000",
      config: { channels, symbols: ["AAPL.US"], timeframe: "1d" },
    });
    const backtest = async (strategy_name: string) => {
      const body = {
        session_id: session.id,
        strategy_name,
        strategy_config: strategy_name === "multi_channel" ? {} : { fast_period: 10, slow_period: 30 },
        symbols: ["AAPL.US"],
        start_date: "2020-01-02",
        end_date: "2020-12-31",
        initial_capital: "100000",
      };
      const { backtest_id } = await as("POST", "/api/v1/backtest/start", 200, body);
      expect((await runner.outcome("backtest", `${backtest_id}-1`))?.status).toBe("SUCCEEDED");
      return as("GET", `/api/v1/backtest/${backtest_id}/result`, 200);
    };

    const own = await backtest("ma_crossover");
    expect(Object.keys(own.channels)).toEqual(["main"]);
    // The session's channels are as configured, not replaced by the run's `main`.
    const listed = await as("GET", `/api/v1/sessions/${session.id}/channels`, 200);
    expect(listed.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual(["aggressive", "steady"]);
    expect((await as("GET", `/api/v1/trading/sessions/${session.id}`, 200)).config.channels.map((c: { channel_id: string }) => c.channel_id)).toEqual([
      "aggressive",
      "steady",
    ]);
    const positions = await as("GET", `/api/v1/channels/sessions/${session.id}/positions`, 200);
    expect(positions.channels.map((c: { channel_id: string; positions: unknown[] }) => [c.channel_id, c.positions])).toEqual([
      ["aggressive", []],
      ["steady", []],
    ]);
    for (const path of views(session.id)) await as("GET", path, 200);

    const both = await backtest("multi_channel");
    expect(Object.keys(both.channels).sort()).toEqual(["aggressive", "steady"]);
    const metrics = await as("GET", `/api/v1/sessions/${session.id}/channels/steady/metrics`, 200);
    expect(metrics.total_trades).toBe(both.channels.steady.total_trades);
    for (const path of views(session.id)) await as("GET", path, 200);
  });
});
