import { describe, expect, it } from "vitest";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { WorkerHarness } from "../support/worker-harness";
import { Dec } from "../../packages/core/src/money/decimal";
import { PaperAccounts } from "../../packages/core/src/paper/accounts";

/**
 * A simulation session whose venue is its broker (the default): its orders go to the session's
 * own paper account, the fills come back from the paper broker's executions, a cancel is asked of
 * the broker, and a crash between sending an order and saving that it was sent sends nothing twice.
 */
let worker: SessionWorker;
/** A step's command intake, then its exchange with the broker (what `tick` does around the feed): the API's commands tell the worker which runs changed. */
const route = async () => {
  await worker.takeCommands();
  await worker.routeOrders();
};
let sessionId: string;
let userId: string;
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z", {
  // The US regular session opens (EDT). A crossover too slow to signal in these minutes: only manual orders trade.
  async setup(h) {
    // Without protective exits, which have their suite (session-exits.test.ts): here only the orders placed by hand go to the broker.
    const config = {
      strategy_name: "ma_crossover",
      parameters: { fast_period: 50, slow_period: 100 },
      symbols: ["AAPL.US"],
      timeframe: "1m",
      risk_config: { stop_loss_pct: null, take_profit_pct: null },
    };
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "at the broker", trading_mode: "simulation", asset_mode: "simulated", initial_capital: "100000", config },
    });
    expect(session.config.venue).toBe("broker");
    sessionId = session.id;
    userId = session.user_id;
    await h.api.services.realtime.connections.add({
      connection_id: "watcher",
      topic: `session:${sessionId}`,
      user_id: "x",
      connected_at: new Date().toISOString(),
      expires_at: Math.floor(Date.now() / 1000) + 7200,
    });
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/start`, 200, { token: h.token });
    worker = await h.newWorker();
    await h.minutes(worker, 3);
  },
});

/** The owner's simulated account, which the session trades as its sleeve (docs/accounts.md). */
const paper = () => h.api.services.paperBroker(userId);
const order = (id: string) => h.api.json("GET", `/api/v1/trading/orders/${id}`, 200, { token: h.token });
const place = (body: Record<string, unknown>) =>
  h.api.json("POST", "/api/v1/trading/orders", 201, { token: h.token, body: { session_id: sessionId, symbol: "AAPL.US", ...body } });

describe("a session whose venue is its broker", () => {
  it("sends a market order to its sleeve of the owner's simulated account and books the broker's execution and fee", async () => {
    const placed = await place({ side: "buy", quantity: "10" });
    expect(placed.status).toBe("pending");
    expect(placed.venue_order_id ?? null).toBeNull();
    h.clock += 30_000;
    await worker.tick();
    const filled = await order(placed.id);
    const [atBroker] = (await paper().todayOrders({ symbol: "AAPL.US" })).filter((o) => o.remark === placed.id);
    expect(atBroker).toMatchObject({ status: "FilledStatus", executed_quantity: "10" });
    const executions = await paper().todayExecutions({ order_id: atBroker!.order_id });
    expect(filled).toMatchObject({ status: "filled", venue_order_id: atBroker!.order_id, filled_quantity: "10", filled_price: executions[0]!.price });
    // The fee is the one the broker charged, and the sleeve moved as the session's books did.
    const detail = await paper().orderDetail(atBroker!.order_id);
    const fill = (await h.api.services.trading.sessions.runs.events(sessionId, { limit: 500 })).items.find(
      (e) => e.type === "order_filled" && e.data.order_id === placed.id,
    );
    expect(fill?.data.commission).toBe(new Dec(detail.charge_detail.total_amount).toFixed());
    const sleeve = (await PaperAccounts.sleeve(h.api.services.paperBroker.deps, userId, sessionId))!;
    const cost = new Dec(executions[0]!.price).times(10).toDecimalPlaces(2).plus(detail.charge_detail.total_amount);
    expect(sleeve).toMatchObject({ cash: { USD: new Dec(100000).minus(cost).toFixed(2) }, positions: { "AAPL.US": "10" } });
    const position = (await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/positions/latest`, 200, { token: h.token })).positions.find(
      (p: { symbol: string }) => p.symbol === "AAPL.US",
    );
    expect(position.quantity).toBe("10");
    // The socket saw the order reach the broker and fill.
    const mine = h.pushed.filter((m) => m.data?.order_id === placed.id).map((m) => m.type);
    expect(mine).toEqual(expect.arrayContaining(["order_submitted", "order_routed", "order_filled"]));
  });

  it("sends an order once although the worker died after sending it and before saving that it had", async () => {
    const placed = await place({ side: "buy", quantity: "5" });
    const runs = h.api.services.trading.sessions.runs;
    const save = runs.save.bind(runs);
    let failures = 0;
    runs.save = async (...args) => {
      if (failures++ === 0) throw new Error("killed between the broker's answer and the save");
      return save(...args);
    };
    try {
      h.clock += 30_000;
      await expect(route()).rejects.toThrow("killed");
    } finally {
      runs.save = save;
    }
    expect((await order(placed.id)).status).toBe("pending");
    await route();
    const atBroker = (await paper().todayOrders({ symbol: "AAPL.US" })).filter((o) => o.remark === placed.id);
    expect(atBroker).toHaveLength(1);
    expect(await order(placed.id)).toMatchObject({ status: "filled", filled_quantity: "5", venue_order_id: atBroker[0]!.order_id });
    // Routing again finds nothing left to do.
    const before = (await runs.get(sessionId))!.version;
    await route();
    expect((await runs.get(sessionId))!.version).toBe(before);
  });

  it("replaces a resting order at the broker, and asks the broker to cancel it and ends it when the broker has", async () => {
    const resting = await place({ side: "buy", order_type: "limit", price: "1", quantity: "1" });
    await route();
    const venueId = (await order(resting.id)).venue_order_id;
    expect(venueId).toEqual(expect.any(String));
    const replaced = await h.api.json("PUT", `/api/v1/trading/orders/${resting.id}`, 200, { token: h.token, body: { price: "2", quantity: "3" } });
    expect(replaced).toMatchObject({ replaced: true, denials: [], order: { price: "2", quantity: "3" } });
    await route();
    expect(await paper().orderDetail(venueId)).toMatchObject({ price: "2", quantity: "3" });
    const asked = await h.api.json("POST", `/api/v1/trading/orders/${resting.id}/cancel`, 200, { token: h.token });
    expect(asked).toMatchObject({ status: "pending", cancel_requested: true });
    await route();
    expect(await order(resting.id)).toMatchObject({ status: "cancelled", cancelled_at: expect.any(String) });
    const [atBroker] = (await paper().todayOrders({ symbol: "AAPL.US" })).filter((o) => o.remark === resting.id);
    expect(atBroker!.status).toBe("CanceledStatus");
  });

  it("ends an order the broker refuses as rejected, with the broker's reason", async () => {
    // The account stops funding the session behind the worker's back: the broker refuses its next order.
    const accounts = h.api.services.trading.sessions.accounts!;
    const session = (await h.api.services.trading.sessions.sessions.get(sessionId))!;
    await accounts.release(session);
    const placed = await place({ side: "sell", quantity: "15" });
    h.clock += 30_000;
    await route();
    const rejected = await order(placed.id);
    expect(rejected.status).toBe("rejected");
    expect(rejected.denials[0]).toMatchObject({ reason: "VENUE_REJECTED" });
    expect(rejected.denials[0].message).toContain("SLEEVE_NOT_FOUND");
    // Funded again with what the session holds, it trades on.
    expect(await accounts.reserve(session)).toBe(userId);
  });
});

describe("stopping a session at its broker", () => {
  it("cancels the orders it still has there before letting it go, and keeps it until then", async () => {
    const resting = await place({ side: "buy", order_type: "limit", price: "1", quantity: "2" });
    await route();
    const venueId = (await order(resting.id)).venue_order_id;
    expect(venueId).toEqual(expect.any(String));
    const stopped = await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/stop`, 200, { token: h.token });
    expect(stopped.status).toBe("stopped");
    // Still on the worker's list, and not deleted while its order is at the broker.
    expect((await h.api.services.trading.sessions.sessions.listLive()).map((s) => s.id)).toContain(sessionId);
    expect((await h.api.json("DELETE", `/api/v1/trading/sessions/${sessionId}`, 409, { token: h.token })).error_code).toBe("INVALID_STATE_TRANSITION");
    await worker.tick();
    expect(await order(resting.id)).toMatchObject({ status: "cancelled", cancel_requested: true });
    const [atBroker] = (await paper().todayOrders({ symbol: "AAPL.US" })).filter((o) => o.order_id === venueId);
    expect(atBroker!.status).toBe("CanceledStatus");
    expect((await h.api.services.trading.sessions.sessions.listLive()).map((s) => s.id)).not.toContain(sessionId);
    expect(h.pushed.filter((m) => m.data?.order_id === resting.id).map((m) => m.type)).toEqual(
      expect.arrayContaining(["order_cancel_requested", "order_cancelled"]),
    );
    await h.api.json("DELETE", `/api/v1/trading/sessions/${sessionId}`, 200, { token: h.token });
  });
});
