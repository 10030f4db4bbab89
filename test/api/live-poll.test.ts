import { describe, expect, it } from "vitest";
import { LIVE_POLL_MS, SessionWorker } from "../../packages/worker/src/session-worker";
import { liveSuite, pause } from "../support/live-suite";

/**
 * The fallback read of a LongPort account (docs/live-trading.md "Trade calls"): order states come
 * from the trade socket's pushes, and every `LIVE_POLL_MS` the account's orders are read once for
 * every session trading it, so a fill whose push was lost is booked within about that long,
 * whichever session it belongs to.
 */
const START = "2024-03-15T14:30:00Z"; // a Friday, 10:30 in New York (EDT)
const suite = liveSuite(START);
const { h, minute, atLongport } = suite;

const config = {
  strategy_name: "ma_crossover",
  parameters: { fast_period: 50, slow_period: 100 },
  symbols: ["AAPL.US"],
  timeframe: "1m",
  execution: { commission: { model: "percent", rate: 0 } },
  risk_config: { max_position_size: 1, max_loss_per_trade: 0.1 },
};

describe("a fill whose push LongPort lost", () => {
  it("is booked by the next fallback read for every session on the account, not only the first one read", async () => {
    const ids: string[] = [];
    for (const name of ["first", "second", "third"]) {
      const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
        token: h.token,
        body: { session_name: name, trading_mode: "live", asset_mode: "real", initial_capital: "20000", config },
      });
      await h.api.json("POST", `/api/v1/trading/sessions/${session.id}/start`, 200, { token: h.token });
      ids.push(session.id);
    }
    // The worker's wall clock, which the fallback read is timed on, moved on by the test.
    let skew = 0;
    const worker = new SessionWorker(h.api.services, { tickMs: 1e9, refreshMs: 1e9, beatMs: 0, wall: () => Date.now() + skew });
    h.workers.push(worker);
    await worker.start();
    await minute(worker, 190);
    const orders = [];
    for (const session_id of ids)
      orders.push(
        await h.api.json("POST", "/api/v1/trading/orders", 201, {
          token: h.token,
          body: { session_id, symbol: "AAPL.US", side: "buy", quantity: "10", order_type: "limit", price: "189" },
        }),
      );
    await minute(worker, 190);
    // The pushes of their acceptance read back (a step reads the orders a push named).
    await pause(50);
    await minute(worker, 190);
    // LongPort fills every order; their pushes are lost.
    suite.fake.faults.tradePushes.hold();
    for (const order of orders) suite.fake.account.fill(atLongport(order.id)!.orderId, { quantity: 10, price: 189 });
    await pause(50);
    expect(suite.fake.faults.tradePushes.discard()).toBe(orders.length);
    skew += LIVE_POLL_MS + 1_000;
    await minute(worker, 190);
    const statuses = await Promise.all(orders.map((o) => h.api.json("GET", `/api/v1/trading/orders/${o.id}`, 200, { token: h.token })));
    expect(statuses.map((o) => [o.status, o.filled_quantity])).toEqual(orders.map(() => ["filled", "10"]));
  });
});
