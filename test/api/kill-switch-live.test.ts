import { describe, expect, it } from "vitest";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { LongportErrors } from "../support/fake-longport/faults";
import { liveSuite } from "../support/live-suite";

/**
 * The kill switch (docs/security.md "Kill switch") on a live session through the real `longport` SDK
 * and the fake LongPort: every order resting at LongPort is cancelled there; a cancel LongPort keeps
 * failing is retried with backoff and reported (`cancel_failed` on the switch, a CANCEL_FAILED alert).
 */
const START = "2024-03-15T19:30:00Z"; // a Friday, 15:30 in New York (EDT)
const suite = liveSuite(START);
const { h, minute, atLongport } = suite;

describe("the kill switch on a live session at LongPort", () => {
  let sessionId: string;
  let worker: SessionWorker;

  it("cancels every order resting at LongPort, retrying a cancel LongPort fails and reporting it", async () => {
    const config = {
      strategy_name: "ma_crossover",
      parameters: { fast_period: 50, slow_period: 100 },
      symbols: ["AAPL.US"],
      timeframe: "1m",
      execution: { commission: { model: "percent", rate: 0 } },
      risk_config: { max_position_size: 1, max_loss_per_trade: 0.1, stop_loss_pct: null, take_profit_pct: null },
    };
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "live, halted", trading_mode: "live", asset_mode: "real", initial_capital: "100000", config },
    });
    sessionId = session.id;
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/start`, 200, { token: h.token });
    worker = await h.newWorker();
    for (let i = 0; i < 2; i++) await minute(worker, 190);

    const resting: { id: string }[] = [];
    for (const price of ["150", "151"])
      resting.push(
        await h.api.json("POST", "/api/v1/trading/orders", 201, {
          token: h.token,
          body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", order_type: "limit", price, quantity: "10" },
        }),
      );
    await minute(worker, 190);
    expect(resting.map((placed) => atLongport(placed.id)?.status)).toEqual(["NewStatus", "NewStatus"]);

    // LongPort fails the next five cancels (its own failure, 500000): the first order's three in a row, the second's two.
    suite.fake.faults.failNext({ method: "DELETE", path: "/v1/trade/order" }, LongportErrors.internal, 5);
    const tripped = await h.api.json("POST", "/api/v1/kill-switch", 200, { token: h.token, body: { reason: "desk halt" } });
    expect(tripped).toMatchObject({ active: true, sessions_paused: [sessionId] });
    const [first, second] = resting;
    await suite.settle(worker, async () => resting.every((placed) => atLongport(placed.id)?.status === "CanceledStatus"), 30);

    for (const placed of resting) expect((await h.api.json("GET", `/api/v1/trading/orders/${placed.id}`, 200, { token: h.token })).status).toBe("cancelled");
    const state = (await h.api.json("GET", "/api/v1/kill-switch", 200, { token: h.token })).user;
    const byId = Object.fromEntries(state.orders.map((o: { order_id: string }) => [o.order_id, o]));
    expect(byId[first.id]).toMatchObject({ status: "cancelled", cancel_failed: { attempts: 3, error: expect.stringContaining("500000") } });
    expect(byId[second.id]).toMatchObject({ status: "cancelled", cancel_failed: null });
    const alerts = (await h.logs(sessionId)).filter((line) => line.type === "alert" && line.data.reason === "CANCEL_FAILED");
    expect(alerts.map((line) => line.data.values.order_id)).toEqual([first.id]);

    // Nothing new reaches LongPort while the switch is tripped.
    const refused = await h.api.json("POST", "/api/v1/trading/orders", 409, {
      token: h.token,
      body: { session_id: sessionId, symbol: "AAPL.US", side: "buy", order_type: "limit", price: "150", quantity: "10" },
    });
    expect(refused.kill_switch).toMatchObject({ scope: "user", reason: "desk halt" });
    await h.api.json("POST", "/api/v1/kill-switch/release", 200, { token: h.token });
  });
});
