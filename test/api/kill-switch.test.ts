import { describe, expect, it } from "vitest";
import { createServices } from "../../packages/adapters/src/services";
import { createApp } from "../../packages/api/src";
import { fullRegularSession } from "../../packages/local/src/simulated-clock";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { WorkerHarness } from "../support/worker-harness";

/**
 * The kill switch (docs/security.md "Kill switch") on the paper venue: a simulation session whose
 * orders rest at its sleeve of the owner's simulated account. Tripping pauses the session and has
 * every order cancelled at the paper broker; new orders are refused with 409 KILL_SWITCH_ACTIVE
 * naming the switch, also by a service built anew over the same table; releasing lets them in again.
 */
let worker: SessionWorker;
let sessionId: string;
let userId: string;
const route = async () => {
  await worker.takeCommands();
  await worker.routeOrders();
};
// Without protective exits: only the orders placed by hand rest at the broker.
const config = {
  strategy_name: "ma_crossover",
  parameters: { fast_period: 50, slow_period: 100 },
  symbols: ["AAPL.US"],
  timeframe: "1m",
  risk_config: { stop_loss_pct: null, take_profit_pct: null },
};
// The open of a recent full US regular session: the audit entries and API keys the suite reads expire by the wall clock.
const RECENT_OPEN = new Date(fullRegularSession("US", Date.now() - 7 * 86_400_000).start).toISOString();
const h = WorkerHarness.forSuite(RECENT_OPEN, {
  async setup(h) {
    const session = await h.startSession("halted by the switch", config);
    sessionId = session.id;
    userId = session.user_id;
    worker = await h.newWorker();
    await h.minutes(worker, 3);
  },
});

const paper = () => h.api.services.paperBroker(userId);
const order = (id: string) => h.api.json("GET", `/api/v1/trading/orders/${id}`, 200, { token: h.token });
const placeBody = (body: Record<string, unknown>) => ({ session_id: sessionId, symbol: "AAPL.US", side: "buy", order_type: "limit", quantity: "1", ...body });
const simulationOrder = { symbol: "AAPL.US", side: "buy", order_type: "limit", price: "1", quantity: "1" };

describe("the kill switch on the paper venue", () => {
  it("pauses the session, cancels every order at the paper broker and refuses new orders until released", async () => {
    const resting: { id: string }[] = [];
    for (const price of ["1", "2"]) resting.push(await h.api.json("POST", "/api/v1/trading/orders", 201, { token: h.token, body: placeBody({ price }) }));
    await route();
    for (const placed of resting) expect((await order(placed.id)).venue_order_id).toEqual(expect.any(String));
    // And one on the simulated venue outside any session: the user's own, on their account.
    const outside = await h.api.json("POST", "/api/v1/trading/simulation/orders", 201, { token: h.token, body: simulationOrder });
    expect(outside.status).toBe("pending");

    const tripped = await h.api.json("POST", "/api/v1/kill-switch", 200, { token: h.token, body: { reason: "runaway bot" } });
    expect(tripped).toMatchObject({ scope: "user", user_id: userId, active: true, sessions_paused: [sessionId] });
    expect(tripped.trip).toMatchObject({ scope: "user", tripped_by: userId, key_id: null, reason: "runaway bot" });
    const sessionOrders = tripped.orders.filter((o: { session_id: string | null }) => o.session_id !== null);
    expect(sessionOrders.map((o: { order_id: string }) => o.order_id).sort()).toEqual(resting.map((o) => o.id).sort());
    expect(sessionOrders.every((o: { cancel_requested: boolean }) => o.cancel_requested)).toBe(true);
    // The order outside any session is withdrawn at the trip, on the user's account.
    expect(tripped.orders.filter((o: { session_id: string | null }) => o.session_id === null)).toEqual([
      {
        session_id: null,
        account_id: userId,
        order_id: outside.id,
        symbol: "AAPL.US",
        side: "Buy",
        status: "cancelled",
        cancel_requested: false,
        cancel_failed: null,
      },
    ]);
    expect((await paper().orderDetail(outside.id)).status).toBe("CanceledStatus");
    expect((await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}`, 200, { token: h.token })).status).toBe("paused");

    // The worker's next step forwards the cancels: every order ends cancelled at the paper broker.
    await route();
    const atBroker = (await paper().todayOrders({ symbol: "AAPL.US" })).filter((o) => resting.some((placed) => placed.id === o.remark));
    expect(atBroker.map((o) => o.status)).toEqual(["CanceledStatus", "CanceledStatus"]);
    for (const placed of resting) expect((await order(placed.id)).status).toBe("cancelled");
    const state = await h.api.json("GET", "/api/v1/kill-switch", 200, { token: h.token });
    expect(state.active).toBe(true);
    expect(state.user.orders.map((o: { status: string; cancel_requested: boolean }) => [o.status, o.cancel_requested])).toEqual([
      ["cancelled", false],
      ["cancelled", false],
      ["cancelled", false],
    ]);

    // Every order path answers 409 naming the switch.
    const refused = await h.api.json("POST", "/api/v1/trading/orders", 409, { token: h.token, body: placeBody({ price: "3" }) });
    expect(refused).toMatchObject({ error_code: "KILL_SWITCH_ACTIVE", kill_switch: { scope: "user", tripped_by: userId, reason: "runaway bot" } });
    expect(refused.detail).toContain("runaway bot");
    expect((await h.api.json("POST", "/api/v1/trading/simulation/orders", 409, { token: h.token, body: simulationOrder })).error_code).toBe(
      "KILL_SWITCH_ACTIVE",
    );
    const passThrough = { symbol: "AAPL.US", order_type: "LO", side: "Buy", submitted_quantity: "1", submitted_price: "1", time_in_force: "Day" };
    expect((await h.api.json("POST", "/api/v1/api-test/trade/submit-order", 409, { token: h.token, body: passThrough })).error_code).toBe("KILL_SWITCH_ACTIVE");
    expect((await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/resume`, 409, { token: h.token })).error_code).toBe("KILL_SWITCH_ACTIVE");
    const status = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/engine/status`, 200, { token: h.token });
    expect(status.kill_switch).toMatchObject({ scope: "user", reason: "runaway bot" });
    // The session's log and socket carry the trip.
    expect((await h.logs(sessionId)).filter((line) => line.type === "kill_switch").map((line) => line.data.state)).toEqual(["tripped"]);
    expect(h.pushed.some((m) => m.type === "kill_switch" && m.data.state === "tripped")).toBe(true);
  });

  it("stays tripped for a service built anew over the same table (a restart)", async () => {
    const restarted = createServices(h.api.services.config);
    expect(await restarted.killSwitch.guard.halting(userId)).toMatchObject({ scope: "user", reason: "runaway bot" });
    const answer = await createApp(restarted).request("/api/v1/trading/simulation/orders", {
      method: "POST",
      headers: { Authorization: `Bearer ${h.token}`, "Content-Type": "application/json" },
      body: JSON.stringify(simulationOrder),
    });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error_code: string }).error_code).toBe("KILL_SWITCH_ACTIVE");
  });

  it("accepts orders again once released, and the audit trail has the trip and the release", async () => {
    const released = await h.api.json("POST", "/api/v1/kill-switch/release", 200, { token: h.token });
    expect(released).toMatchObject({ active: false, released_by: userId, trip: { reason: "runaway bot" } });
    expect((await h.api.json("GET", "/api/v1/kill-switch", 200, { token: h.token })).active).toBe(false);
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/resume`, 200, { token: h.token });
    const placed = await h.api.json("POST", "/api/v1/trading/orders", 201, { token: h.token, body: placeBody({ price: "1" }) });
    expect(placed.status).toBe("pending");
    await route();
    expect((await order(placed.id)).venue_order_id).toEqual(expect.any(String));
    await h.api.json("POST", "/api/v1/trading/simulation/orders", 201, { token: h.token, body: simulationOrder });
    expect((await h.logs(sessionId)).filter((line) => line.type === "kill_switch").map((line) => line.data.state)).toEqual(["tripped", "released"]);
    const audit = await h.api.json("GET", "/api/v1/audit?kind=kill-switch", 200, { token: h.token });
    expect(audit.items.map((entry: { route: string; outcome: string }) => [entry.route, entry.outcome])).toEqual([
      ["/api/v1/kill-switch/release", "succeeded"],
      ["/api/v1/kill-switch", "succeeded"],
    ]);
  });

  it("refuses a key without the trade scope, and the stage's switch to a non-administrator", async () => {
    const { key } = await h.api.json("POST", "/api/v1/auth/api-keys", 201, { token: h.token, body: { name: "reader", scopes: ["read"] } });
    const byKey = await h.api.json("POST", "/api/v1/kill-switch", 403, { token: key });
    expect(byKey).toMatchObject({ error_code: "ACCESS_DENIED", required_scope: "trade" });
    // Reading the state needs only `read`.
    expect((await h.api.json("GET", "/api/v1/kill-switch", 200, { token: key })).active).toBe(false);
    expect((await h.api.json("POST", "/api/v1/kill-switch", 403, { token: h.token, body: { scope: "stage" } })).error_code).toBe("ACCESS_DENIED");
    expect((await h.api.json("POST", "/api/v1/kill-switch/release", 403, { token: h.token, body: { scope: "stage" } })).error_code).toBe("ACCESS_DENIED");
    expect((await h.api.json("POST", "/api/v1/kill-switch", 422, { token: h.token, body: { scope: "everyone", reason: "" } })).detail).toHaveLength(2);
  });

  it("halts every user when an administrator trips the stage's switch", async () => {
    const admin = await h.api.adminToken();
    const resting = await h.api.json("POST", "/api/v1/trading/simulation/orders", 201, { token: h.token, body: simulationOrder });
    const tripped = await h.api.json("POST", "/api/v1/kill-switch", 200, { token: admin, body: { scope: "stage", reason: "exchange outage" } });
    expect(tripped).toMatchObject({ scope: "stage", user_id: null, active: true, sessions_paused: [sessionId] });
    // Every user's orders outside any session are withdrawn too.
    expect(
      tripped.orders
        .filter((o: { session_id: string | null }) => o.session_id === null)
        .map((o: { order_id: string; status: string }) => [o.order_id, o.status]),
    ).toEqual(expect.arrayContaining([[resting.id, "cancelled"]]));
    expect((await paper().orderDetail(resting.id)).status).toBe("CanceledStatus");
    const refused = await h.api.json("POST", "/api/v1/trading/simulation/orders", 409, { token: h.token, body: simulationOrder });
    expect(refused.kill_switch).toMatchObject({ scope: "stage", reason: "exchange outage" });
    // The user sees the stage's switch with their own session in it.
    const seen = await h.api.json("GET", "/api/v1/kill-switch", 200, { token: h.token });
    expect(seen).toMatchObject({ active: true, user: { active: false }, stage: { active: true, sessions_paused: [sessionId] } });
    await h.api.json("POST", "/api/v1/kill-switch/release", 200, { token: admin, body: { scope: "stage" } });
    await h.api.json("POST", "/api/v1/trading/simulation/orders", 201, { token: h.token, body: simulationOrder });
  });

  it("is tripped by a session's max_daily_loss breach when its risk configuration says so, and the trip is audited", async () => {
    const owner = await h.api.createUser();
    const riskConfig = { ...config.risk_config, max_daily_loss: 0.000001, trip_kill_switch: true };
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: owner.token,
      body: {
        session_name: "a day's loss halts all",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: "100000",
        config: { ...config, risk_config: riskConfig },
      },
    });
    expect(session.config.risk_config.trip_kill_switch).toBe(true);
    await h.api.json("POST", `/api/v1/trading/sessions/${session.id}/start`, 200, { token: owner.token });
    await worker.takeCommands();
    await h.minutes(worker, 1);
    // A market buy fills at the ask with the broker's fee: the day is in loss at the next bar, beyond a limit of 0.0001 %.
    await h.api.json("POST", "/api/v1/trading/orders", 201, {
      token: owner.token,
      body: { session_id: session.id, symbol: "AAPL.US", side: "buy", quantity: "10" },
    });
    await h.minutes(worker, 3);
    const state = await h.api.json("GET", "/api/v1/kill-switch", 200, { token: owner.token });
    expect(state.user).toMatchObject({ active: true, sessions_paused: [session.id], trip: { tripped_by: `risk:${session.id}`, key_id: null } });
    expect(state.user.trip.reason).toContain("MAX_DAILY_LOSS_BREACHED");
    expect((await h.api.json("GET", `/api/v1/trading/sessions/${session.id}`, 200, { token: owner.token })).status).toBe("paused");
    // The other user trades on: the switch is the owner's.
    expect((await h.api.json("GET", "/api/v1/kill-switch", 200, { token: h.token })).active).toBe(false);
    const audit = await h.api.json("GET", "/api/v1/audit?kind=kill-switch", 200, { token: owner.token });
    expect(audit.items.map((entry: { route: string; session_id: string; outcome: string }) => [entry.route, entry.session_id, entry.outcome])).toEqual([
      ["risk:max_daily_loss", session.id, "succeeded"],
    ]);
  });
});
