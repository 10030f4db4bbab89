import { describe, expect, it } from "vitest";
import { PaperAccounts } from "../../packages/core/src/paper/accounts";
import { WorkerHarness } from "../support/worker-harness";

/**
 * Protective exits of a simulation session at its broker (the owner's simulated account, the
 * paper broker): the stop rests there as a good-till-cancelled market-if-touched order, so it
 * guards the position while no worker runs; the target is watched by the engine on the session's
 * bars. Stops and targets a tenth of a percent away, so the simulated market reaches them within
 * minutes (it is seeded: the same minutes every run).
 */
const h = WorkerHarness.forSuite("2024-03-15T13:30:00Z");

const config = (risk: Record<string, unknown>) => ({
  // A crossover too slow to signal in these minutes: only the order placed by hand trades.
  strategy_name: "ma_crossover",
  parameters: { fast_period: 50, slow_period: 100 },
  symbols: ["AAPL.US"],
  timeframe: "1m",
  risk_config: { max_loss_per_trade: 0.1, ...risk },
});

async function buyAtBroker(name: string, risk: Record<string, unknown>) {
  const session = await h.startSession(name, config(risk));
  let worker = await h.newWorker();
  await h.minutes(worker, 3);
  const buy = await h.api.json("POST", "/api/v1/trading/orders", 201, {
    token: h.token,
    body: { session_id: session.id, symbol: "AAPL.US", side: "buy", quantity: "10" },
  });
  h.clock += 30_000;
  await worker.tick();
  await worker.tick();
  expect((await order(buy.id)).status).toBe("filled");
  return { session, worker, buy, restart: async () => ((worker = await h.newWorker()), worker) };
}

const order = (id: string) => h.api.json("GET", `/api/v1/trading/orders/${id}`, 200, { token: h.token });
const ordersOf = async (sessionId: string) =>
  (await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/orders?limit=100`, 200, { token: h.token })).orders as any[];

describe("protective exits at the paper broker", () => {
  it("rests the stop at the broker as a GTC market-if-touched order that fills while no worker runs, and books it as a stop-loss exit", async () => {
    const { session, worker, restart } = await buyAtBroker("stop at the broker", { stop_loss_pct: 0.001, take_profit_pct: 0.05 });
    const protective = (await ordersOf(session.id)).filter((o) => o.exit_reason);
    expect(protective.map((o) => [o.exit_reason, o.order_type, o.status])).toEqual(
      expect.arrayContaining([
        ["stop_loss", "stop", "pending"],
        ["take_profit", "limit", "pending"],
      ]),
    );
    const stop = protective.find((o) => o.exit_reason === "stop_loss")!;
    const userId = session.user_id as string;
    const atBroker = (await h.api.services.paperBroker(userId).todayOrders({ symbol: "AAPL.US" })).find((o) => o.remark === stop.id);
    expect(atBroker).toMatchObject({ order_type: "MIT", time_in_force: "GTC", trigger_price: stop.price, side: "Sell", quantity: "10" });
    // The target is the engine's to watch: nothing of it at the broker.
    const target = protective.find((o) => o.exit_reason === "take_profit")!;
    expect((await h.api.services.paperBroker(userId).todayOrders({ symbol: "AAPL.US" })).some((o) => o.remark === target.id)).toBe(false);

    // The worker dies; the market moves on; the broker fills the stop on its own.
    await worker.stop();
    let filled = false;
    for (let minute = 0; minute < 120 && !filled; minute++) {
      h.clock += 60_000;
      const detail = await h.api.services.paperBroker(userId).orderDetail(atBroker!.order_id);
      filled = detail.status === "FilledStatus";
    }
    expect(filled).toBe(true);
    // A new worker takes the session over and books what the broker did.
    const next = await restart();
    await h.minutes(next, 2);
    const after = await ordersOf(session.id);
    expect(after.find((o) => o.id === stop.id)).toMatchObject({ status: "filled", filled_quantity: "10" });
    expect(after.find((o) => o.id === target.id)).toMatchObject({ status: "cancelled" });
    const trades = (await h.logs(session.id)).filter((e) => e.type === "trade_closed");
    expect(trades.map((e) => e.data.exit_reason)).toEqual(["stop_loss"]);
    // The sleeve of the simulated account and the session agree: nothing held.
    const sleeve = (await PaperAccounts.sleeve(h.api.services.paperBroker.deps, userId, session.id))!;
    expect(sleeve.positions["AAPL.US"] ?? "0").toBe("0");
  });

  it("sends a watched target as a market order once a bar reaches it, after the broker confirmed the stop's cancel", async () => {
    const { session, worker } = await buyAtBroker("target watched", { stop_loss_pct: 0.05, take_profit_pct: 0.001 });
    let closed: any[] = [];
    for (let minute = 0; minute < 120 && closed.length === 0; minute++) {
      await h.minutes(worker, 1);
      closed = (await h.logs(session.id)).filter((e) => e.type === "trade_closed");
    }
    expect(closed.map((e) => e.data.exit_reason)).toEqual(["take_profit"]);
    const logs = await h.logs(session.id);
    const target = logs.find((e) => e.type === "order_submitted" && e.data.exit_reason === "take_profit")!;
    const stop = logs.find((e) => e.type === "order_submitted" && e.data.exit_reason === "stop_loss")!;
    const sequenceOf = (type: string, id: string) => logs.find((e) => e.type === type && e.data.order_id === id)?.sequence;
    // Reached on a bar: it became a market order; the stop was asked to cancel, ended at the broker, and only then the target went out.
    expect(sequenceOf("order_replaced", target.data.order_id)).toBeLessThan(sequenceOf("order_cancel_requested", stop.data.order_id)!);
    expect(sequenceOf("order_cancelled", stop.data.order_id)).toBeLessThan(sequenceOf("order_routed", target.data.order_id)!);
    expect((await order(target.data.order_id)).status).toBe("filled");
  });
});
