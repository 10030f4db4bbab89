import { beforeAll, describe, expect, it } from "vitest";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * One date rule for every route: a date must exist (no 2024-02-30) and lie within 1970..2100.
 * Anything else is a 422 that locates the field, never a 400 from deeper down or a 500.
 */
let api: TestApi;
let token: string;
beforeAll(async () => {
  api = await createTestApi();
  token = (await api.createUser()).token;
});

const IMPOSSIBLE = "2024-02-30";
const FAR_FUTURE = "+275760-09-13";
const BEFORE_EPOCH = "1969-12-31";

async function refused(method: string, path: string, field: string, body?: unknown, as = token) {
  const answer = await api.json(method, path, 422, { token: as, body });
  expect(answer.error_code).toBe("VALIDATION_ERROR");
  expect(answer.detail.map((issue: { loc: string[] }) => issue.loc.at(-1))).toContain(field);
  return answer;
}

describe("dates", () => {
  for (const date of [IMPOSSIBLE, FAR_FUTURE, BEFORE_EPOCH, "2024-13-01"]) {
    it(`answer 422 for ${date} wherever a date is taken`, async () => {
      await refused("POST", "/api/v1/stock-import/import", "start_date", { symbol: "AAPL.US", start_date: date, end_date: "2024-03-05" });
      await refused("POST", "/api/v1/stock-calendar/AAPL.US/init", "start_date", { start_date: date, end_date: "2024-03-05" }, await api.adminToken());
      await refused("GET", `/api/v1/stock-calendar/AAPL.US?start_date=${encodeURIComponent(date)}&end_date=2024-03-05`, "start_date");
      await refused("GET", `/api/v1/stock-calendar/AAPL.US/missing?period=1d&start_date=${encodeURIComponent(date)}`, "start_date");
      await refused("POST", "/api/v1/stock-calendar/AAPL.US/verify", "end_date", { start_date: "2024-03-01", end_date: date });
      await refused("GET", `/api/v1/stock-data?code=AAPL.US&start_date=${encodeURIComponent(date)}`, "start_date");
      await refused("POST", "/api/v1/trading/sessions", "start_date", {
        session_name: "dated",
        trading_mode: "backtest",
        asset_mode: "simulated",
        initial_capital: "1000",
        start_date: date,
        config: {},
      });
      await refused("POST", "/api/v1/api-test/pull/history-candlesticks", "start", { symbol: "AAPL.US", start: date, end: "2024-03-05" });
      await refused("POST", "/api/v1/api-test/pull/trading-days", "begin", { market: "US", begin: date, end: "2024-03-05" });
    });
  }

  it("reports a date written 2024/01/01 once, at its field", async () => {
    const imported = await refused("POST", "/api/v1/stock-import/import", "start_date", {
      symbol: "AAPL.US",
      start_date: "2024/01/01",
      end_date: "2024-03-05",
    });
    expect(imported.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([["body", "start_date"]]);
    const backtest = await refused("POST", "/api/v1/backtest/start", "start_date", {
      session_id: "s",
      strategy_name: "ma_crossover",
      strategy_config: {},
      symbols: ["AAPL.US"],
      start_date: "2024/01/01",
      end_date: "2024-03-05",
      initial_capital: 1000,
    });
    expect(backtest.detail.map((issue: { loc: string[] }) => issue.loc)).toEqual([["body", "start_date"]]);
  });

  it("still takes real dates in every form", async () => {
    await api.json("GET", "/api/v1/stock-calendar/AAPL.US?start_date=2024-02-29&end_date=2024-03-01", 200, { token });
    await api.json("GET", "/api/v1/stock-calendar/AAPL.US?start_date=2024-02-29T09:30:00&end_date=2024-03-01T16:00:00-05:00", 200, { token });
  });
});
