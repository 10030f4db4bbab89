import { beforeAll, describe, expect, it } from "vitest";
import { createBacktestControl } from "../../packages/adapters/src/trading";
import type { MarketData } from "../../packages/core/src/provider/market-data";
import type { WorkflowInput } from "../../packages/core/src/workflows";
import { createTestApi, testConfig, type TestApi } from "../support/harness";

/**
 * No run that silently does nothing (docs/backtests.md "POST /api/v1/backtest/start"): a backtest
 * or a sweep the service could only fail or run empty is refused with one 422 listing every
 * problem of the request, before anything is stored or a workflow starts.
 */
let api: TestApi;
let user: { id: string; token: string };
const started: { name: string; input: WorkflowInput }[] = [];

beforeAll(async () => {
  api = await createTestApi({}, { workflows: { start: async (_workflow, name, input) => void started.push({ name, input }) } });
  user = await api.createUser();
});

async function backtestSession() {
  return api.json("POST", "/api/v1/trading/sessions", 201, {
    token: user.token,
    body: { session_name: "checks", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
  });
}

const request = (session_id: string, overrides: Record<string, unknown> = {}) => ({
  session_id,
  strategy_name: "ma_crossover",
  strategy_config: { fast_period: 10, slow_period: 30 },
  symbols: ["AAPL.US"],
  start_date: "2024-01-01",
  end_date: "2024-03-31",
  initial_capital: 100000,
  ...overrides,
});

type Issue = { loc: (string | number)[]; msg: string; type: string };

/** Starts a backtest that must be refused; nothing may be stored or started. Answers its problems by field. */
async function refused(path: string, body: Record<string, unknown>): Promise<Issue[]> {
  const before = started.length;
  const answer = await api.json("POST", path, 422, { token: user.token, body });
  expect(answer.error_code).toBe("VALIDATION_ERROR");
  expect(started.length).toBe(before);
  if (typeof body.session_id === "string" && body.session_id !== "nope") {
    const session = await api.json("GET", `/api/v1/trading/sessions/${body.session_id}`, 200, { token: user.token });
    expect(session.status).toBe("created");
  }
  return answer.detail;
}

const fields = (issues: Issue[]) => issues.map((issue) => issue.loc.join("."));

describe("a backtest start", () => {
  it("refuses a symbol the market-data provider does not know, naming it, before the backtest is stored", async () => {
    const session = await backtestSession();
    const issues = await refused("/api/v1/backtest/start", request(session.id, { symbols: ["AAPL.US", "FOOBAR.US"] }));
    expect(issues).toEqual([{ loc: ["body", "symbols", 1], msg: "FOOBAR.US is not a symbol the market-data provider knows", type: "invalid_symbol" }]);
    expect(await api.services.trading.backtests.backtests.active()).toEqual([]);
  });

  it("refuses a range outside the exchange calendar (2030), naming what the calendar covers", async () => {
    const session = await backtestSession();
    const issues = await refused("/api/v1/backtest/start", request(session.id, { start_date: "2030-01-02", end_date: "2030-06-30" }));
    expect(issues).toEqual([
      {
        loc: ["body", "start_date"],
        msg: "start_date 2030-01-02 is after the last day the calendar knows: the US exchange calendar covers 2020-01-01 to 2028-12-31",
        type: "outside_calendar",
      },
      {
        loc: ["body", "end_date"],
        msg: "end_date 2030-06-30 is after the last day the calendar knows: the US exchange calendar covers 2020-01-01 to 2028-12-31",
        type: "outside_calendar",
      },
    ]);
    const before = await refused("/api/v1/backtest/start", request(session.id, { start_date: "2019-12-01", end_date: "2020-01-31" }));
    expect(fields(before)).toEqual(["body.start_date"]);
  });

  it("refuses a range without a trading day (a weekend, a holiday), and one none of whose sessions has opened yet", async () => {
    const session = await backtestSession();
    const weekend = await refused("/api/v1/backtest/start", request(session.id, { start_date: "2024-01-06", end_date: "2024-01-07" }));
    expect(weekend).toEqual([
      {
        loc: ["body", "start_date"],
        msg: "no trading day from 2024-01-06 to 2024-01-07: 2024-01-06 Weekend, 2024-01-07 Weekend; the range must hold at least one",
        type: "no_trading_day",
      },
    ]);
    const christmas = await refused("/api/v1/backtest/start", request(session.id, { symbols: ["700.HK"], start_date: "2024-12-25", end_date: "2024-12-26" }));
    expect(christmas[0]!.msg).toBe(
      "no trading day from 2024-12-25 to 2024-12-26: 2024-12-25 Christmas Day, 2024-12-26 The first weekday after Christmas Day; the range must hold at least one",
    );
    const future = await refused("/api/v1/backtest/start", request(session.id, { start_date: "2028-03-01", end_date: "2028-03-31" }));
    expect(future).toEqual([expect.objectContaining({ loc: ["body", "start_date"], type: "no_trading_day" })]);
    expect(future[0]!.msg).toMatch(/^the range from 2028-03-01 to 2028-03-31 has not begun: no trading session of it has opened by 20\d\d-/);
  });

  it("lists every problem at once: a missing strategy_config beside reversed dates and an unknown strategy", async () => {
    const session = await backtestSession();
    const { strategy_config: _none, ...body } = request(session.id, { strategy_name: "ma_cross", start_date: "2024-03-31", end_date: "2024-01-01" });
    const issues = await refused("/api/v1/backtest/start", body);
    expect(fields(issues).sort()).toEqual(["body.end_date", "body.strategy_config", "body.strategy_name"]);
    expect(issues.find((i) => i.loc[1] === "strategy_name")!.type).toBe("strategy_not_found");
  });

  it("lists every problem at once when the body is well formed: an unknown symbol, a weekend, a parameter out of range, an unknown strategy field", async () => {
    const session = await backtestSession();
    const issues = await refused(
      "/api/v1/backtest/start",
      request(session.id, {
        symbols: ["FOOBAR.US", "AAPL.US"],
        start_date: "2024-01-06",
        end_date: "2024-01-07",
        strategy_config: { fast_period: 0, slow_period: 30, execution: { fill: "sometime" } },
      }),
    );
    expect(fields(issues).sort()).toEqual(["body.start_date", "body.strategy_config.execution.fill", "body.strategy_config.fast_period", "body.symbols.0"]);
  });

  it("checks a malformed body's other fields against the caller's session too (its configuration's problems), but not another user's", async () => {
    const session = await backtestSession();
    const issues = await refused("/api/v1/backtest/start", request(session.id, { initial_capital: -5, strategy_config: { fast_period: 0 } }));
    expect(fields(issues).sort()).toEqual(["body.initial_capital", "body.strategy_config.fast_period"]);
    const stranger = await api.createUser();
    const answer = await api.json("POST", "/api/v1/backtest/start", 422, {
      token: stranger.token,
      body: request(session.id, { initial_capital: -5, strategy_config: { fast_period: 0 } }),
    });
    expect(fields(answer.detail)).toEqual(["body.initial_capital"]);
  });

  it("still starts a backtest whose range reaches past today (it runs up to what exists)", async () => {
    const session = await backtestSession();
    const today = new Date().toISOString().slice(0, 10);
    await api.json("POST", "/api/v1/backtest/start", 200, {
      token: user.token,
      body: request(session.id, { start_date: "2024-01-01", end_date: `${Number(today.slice(0, 4)) + 1}-06-30` }),
    });
  });
});

describe("execution.intrabar", () => {
  const intrabar = { intrabar: "1m" };

  it("refuses it on 1-minute bars, which have nothing finer inside, beside the request's other problems; takes it on daily bars", async () => {
    const session = await backtestSession();
    const issues = await refused(
      "/api/v1/backtest/start",
      request(session.id, { strategy_config: { fast_period: 10, slow_period: 30, timeframe: "1m", execution: intrabar }, end_date: "2023-12-31" }),
    );
    expect(issues).toEqual([
      { loc: ["body", "end_date"], msg: "end_date is before start_date", type: "value_error" },
      {
        loc: ["body", "strategy_config", "execution", "intrabar"],
        msg: "execution.intrabar reads the 1-minute bars inside coarser bars, and ma_crossover runs on 1m bars, which have nothing finer inside: use a timeframe of 5m, 1h or 1d, or leave execution.intrabar out",
        type: "intrabar_not_applicable",
      },
    ]);
    await api.json("POST", "/api/v1/backtest/start", 200, {
      token: user.token,
      body: request(session.id, { strategy_config: { fast_period: 10, slow_period: 30, execution: intrabar } }),
    });
  });

  it("refuses it in a session's configuration: a session's orders fill at its broker, or on bars fed without the minutes inside them", async () => {
    for (const trading_mode of ["simulation", "backtest"]) {
      const answer = await api.json("POST", "/api/v1/trading/sessions", 422, {
        token: user.token,
        body: { session_name: "intrabar", trading_mode, asset_mode: "simulated", initial_capital: 100000, config: { execution: intrabar } },
      });
      expect(answer.detail).toEqual([
        {
          loc: ["body", "config", "execution", "intrabar"],
          msg: "execution.intrabar applies to backtests (strategy_config.execution of POST /api/v1/backtest/start): a session's orders fill at its broker, or on bars fed as they close, with no stored minutes inside them",
          type: "intrabar_not_applicable",
        },
      ]);
    }
  });
});

describe("a sizing the risk limits can never allow", () => {
  const half = { model: "cash_fraction", fraction: 0.5 };

  it("refuses a session created with half the cash an entry under the default 10 % position limit, naming both fields and what to change", async () => {
    const answer = await api.json("POST", "/api/v1/trading/sessions", 422, {
      token: user.token,
      body: { session_name: "half", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: { execution: { sizing: half } } },
    });
    expect(answer.detail.map((issue: Issue) => issue.loc.join("."))).toEqual([
      "body.config.execution.sizing.fraction",
      "body.config.execution.sizing.fraction",
    ]);
    expect(answer.detail[0].msg).toBe(
      "execution.sizing.fraction 0.5 sizes an entry at 0.5 of the channel's equity while it holds nothing, above config.risk_config.max_position_size 0.1: every entry would be denied MAX_POSITION_EXCEEDED. Lower execution.sizing.fraction to at most 0.1, or raise config.risk_config.max_position_size to at least 0.5",
    );
    expect(answer.detail[1].msg).toMatch(/config\.risk_config\.max_loss_per_trade 0\.02: every entry would be denied MAX_LOSS_PER_TRADE_EXCEEDED/);
    // Beside the body's other problems.
    const more = await api.json("POST", "/api/v1/trading/sessions", 422, {
      token: user.token,
      body: { session_name: "half", trading_mode: "simulation", asset_mode: "real", initial_capital: 100000, config: { execution: { sizing: half } } },
    });
    expect(new Set(more.detail.map((issue: Issue) => issue.loc.join(".")))).toEqual(new Set(["body.config.execution.sizing.fraction", "body.asset_mode"]));
    // The default sizing, and one the limits allow, are taken.
    await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: user.token,
      body: {
        session_name: "fits",
        trading_mode: "backtest",
        asset_mode: "simulated",
        initial_capital: 100000,
        config: { execution: { sizing: half }, risk_config: { max_position_size: 0.5, max_loss_per_trade: 0.05 } },
      },
    });
  });

  it("refuses a backtest sized over the limits it applies (the session's, or its own over them), and never one without risk rules", async () => {
    const session = await backtestSession();
    const issues = await refused(
      "/api/v1/backtest/start",
      request(session.id, { strategy_config: { fast_period: 10, slow_period: 30, execution: { sizing: half } } }),
    );
    expect(issues.map((issue) => issue.loc.join("."))).toEqual([
      "body.strategy_config.execution.sizing.fraction",
      "body.strategy_config.execution.sizing.fraction",
    ]);
    expect(issues[0]!.msg).toBe(
      "execution.sizing.fraction 0.5 sizes an entry at 0.5 of the channel's equity while it holds nothing, above the session's risk_config.max_position_size 0.1: every entry would be denied MAX_POSITION_EXCEEDED. Lower execution.sizing.fraction to at most 0.1, or raise the session's risk_config.max_position_size to at least 0.5",
    );
    const own = await refused(
      "/api/v1/backtest/start",
      request(session.id, {
        strategy_config: { fast_period: 10, slow_period: 30, execution: { sizing: half }, risk_config: { max_position_size: 0.3, max_loss_per_trade: 0.05 } },
      }),
    );
    expect(own.map((issue) => issue.msg)).toEqual([
      expect.stringContaining("above strategy_config.risk_config.max_position_size 0.3: every entry would be denied MAX_POSITION_EXCEEDED"),
    ]);
    // Without risk rules nothing limits an entry; within its own limits it runs.
    for (const risk_config of [null, { max_position_size: 0.5, max_loss_per_trade: 0.05 }]) {
      await api.json("POST", "/api/v1/backtest/start", 200, {
        token: user.token,
        body: request((await backtestSession()).id, { strategy_config: { fast_period: 10, slow_period: 30, execution: { sizing: half }, risk_config } }),
      });
    }
  });
});

describe("a sweep start", () => {
  const sweep = (session_id: string, overrides: Record<string, unknown> = {}) => ({
    ...request(session_id),
    parameters: { fast_period: [5, 10], slow_period: { min: 30, max: 40, step: 10 } },
    ...overrides,
  });

  it("refuses an unknown symbol, a weekend and an unknown parameter in one answer, before the sweep is stored", async () => {
    const session = await backtestSession();
    const issues = await refused(
      "/api/v1/backtest/sweeps",
      sweep(session.id, { symbols: ["FOOBAR.US", "MSFT.US"], start_date: "2024-01-06", end_date: "2024-01-07", parameters: { fast_period: [5], speed: [1] } }),
    );
    expect(fields(issues).sort()).toEqual(["body.parameters.speed", "body.start_date", "body.symbols.0"]);
  });

  it("refuses an out-of-sample window outside the calendar at its own fields, beside the schema's problems", async () => {
    const session = await backtestSession();
    const issues = await refused(
      "/api/v1/backtest/sweeps",
      sweep(session.id, { metric: "luck", out_of_sample: { start_date: "2029-01-02", end_date: "2029-12-31" } }),
    );
    expect(fields(issues).sort()).toEqual(["body.metric", "body.out_of_sample.end_date", "body.out_of_sample.start_date"]);
    const reversed = await refused("/api/v1/backtest/sweeps", sweep(session.id, { out_of_sample: { start_date: "2025-01-02", end_date: "2024-12-31" } }));
    expect(fields(reversed)).toEqual(["body.out_of_sample.end_date"]);
  });

  it("lists a base configuration every point shares beside the request's other problems", async () => {
    const session = await backtestSession();
    const issues = await refused(
      "/api/v1/backtest/sweeps",
      sweep(session.id, { symbols: ["FOOBAR.US", "MSFT.US"], strategy_config: { execution: { fill: "sometime" } } }),
    );
    expect(fields(issues).sort()).toEqual(["body.strategy_config.execution.fill", "body.symbols.0"]);
  });
});

describe("which symbols a provider knows", () => {
  it("asks the simulated market again symbol by symbol when it refuses a list, and takes LongPort's answer of those it has", async () => {
    const control = (staticInfo: MarketData["staticInfo"]) =>
      createBacktestControl(
        testConfig(),
        api.services.db,
        { now: Date.now, newId: () => "x" },
        { candles: api.services.candles, marketData: async () => ({ staticInfo }) as MarketData, workflows: { start: async () => undefined } },
      );
    const simulated = control(async (symbols) => (await api.services.marketData()).staticInfo(symbols));
    expect(await simulated.unknownSymbols(["AAPL.US", "FOOBAR.US", "700.HK", "NOPE.HK"])).toEqual(["FOOBAR.US", "NOPE.HK"]);
    expect(await simulated.unknownSymbols(["AAPL.US"])).toEqual([]);
    const longport = control(async (symbols) => symbols.filter((s) => s !== "FOOBAR.US").map((symbol) => ({ symbol, lot_size: 1 }) as never));
    expect(await longport.unknownSymbols(["AAPL.US", "FOOBAR.US"])).toEqual(["FOOBAR.US"]);
  });
});
