import { beforeAll, describe, expect, it } from "vitest";
import type { StoredBacktest } from "../../packages/core/src/backtests/backtest-model";
import { createTestApi, type TestApi } from "../support/harness";

/**
 * A session's backtests are reachable from the session (docs/backtests.md "Listing a session's
 * backtests"): `GET /backtest?session_id=` lists every one, newest first, a page at a time.
 */
let api: TestApi;
let owner: { id: string; token: string };
let stranger: { id: string; token: string };

beforeAll(async () => {
  api = await createTestApi({}, { workflows: { start: async () => undefined } });
  owner = await api.createUser();
  stranger = await api.createUser();
});

describe("GET /api/v1/backtest", () => {
  it("lists a session's backtests newest first, page by page, a sweep's runs named as such; the owner's only", async () => {
    const session = await api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: { session_name: "list", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100000, config: {} },
    });
    const started = await api.json("POST", "/api/v1/backtest/start", 200, {
      token: owner.token,
      body: {
        session_id: session.id,
        strategy_name: "ma_crossover",
        strategy_config: { fast_period: 10, slow_period: 30 },
        symbols: ["AAPL.US"],
        start_date: "2024-01-02",
        end_date: "2024-03-28",
        initial_capital: 100000,
      },
    });
    // Two more of the session, stored later: a finished one, and a sweep's run.
    const store = (
      api.services.trading.backtests as unknown as { backtests: { create(b: StoredBacktest): Promise<void>; get(id: string): Promise<StoredBacktest> } }
    ).backtests;
    const first = await store.get(started.backtest_id);
    const later = (id: string, createdAt: string, extra: Partial<StoredBacktest>) =>
      store.create({ ...first, id, created_at: createdAt, updated_at: createdAt, version: 1, ...extra });
    await later("bt-done", "2099-01-01T00:00:00.000Z", { status: "completed", finished_at: "2099-01-01T00:05:00.000Z", message: "Completed" });
    await later("bt-sweep-run", "2099-01-02T00:00:00.000Z", { sweep_id: "sw-1" });

    const page1 = await api.json("GET", `/api/v1/backtest?session_id=${session.id}&limit=2`, 200, { token: owner.token });
    expect(page1.session_id).toBe(session.id);
    expect(page1.backtests.map((b: { backtest_id: string }) => b.backtest_id)).toEqual(["bt-sweep-run", "bt-done"]);
    expect(page1.backtests[0]).toMatchObject({ sweep_id: "sw-1", strategy_name: "ma_crossover", symbols: ["AAPL.US"] });
    expect(page1.backtests[1]).toMatchObject({
      sweep_id: null,
      status: "completed",
      finished_at: "2099-01-01T00:05:00.000Z",
      start_date: "2024-01-02",
      end_date: "2024-03-28",
    });
    expect(typeof page1.cursor).toBe("string");
    const page2 = await api.json("GET", `/api/v1/backtest?session_id=${session.id}&limit=2&cursor=${encodeURIComponent(page1.cursor)}`, 200, {
      token: owner.token,
    });
    expect(page2.backtests.map((b: { backtest_id: string; status: string }) => [b.backtest_id, b.status])).toEqual([[started.backtest_id, "queued"]]);
    expect(page2.cursor).toBeNull();

    // Another user's session: 403; none such: 404; a bad query: 422 listing every problem.
    expect((await api.json("GET", `/api/v1/backtest?session_id=${session.id}`, 403, { token: stranger.token })).error_code).toBe("ACCESS_DENIED");
    expect((await api.json("GET", "/api/v1/backtest?session_id=nope", 404, { token: owner.token })).error_code).toBe("SESSION_NOT_FOUND");
    const bad = await api.json("GET", "/api/v1/backtest?limit=0", 422, { token: owner.token });
    expect(bad.detail.map((issue: { loc: string[] }) => issue.loc.join("."))).toEqual(["query.session_id", "query.limit"]);
  });
});
