import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import type { EngineOrder } from "../engine/events";
import type { Execution, Order, OrderDetail, OrderGateway, SubmitOrderOptions } from "../provider/order-gateway";
import { exchange } from "./venue";

/** A broker that answers from a script: what `exchange` asks of it, and in which order, is recorded. */
function scriptedBroker(script: {
  orders?: Partial<Order>[];
  status?: OrderDetail["status"];
  executions?: Partial<Execution>[];
  submit?: () => Promise<{ order_id: string }>;
}) {
  const calls: string[] = [];
  const submitted: SubmitOrderOptions[] = [];
  const gateway = {
    async todayOrders() {
      calls.push("todayOrders");
      return script.orders ?? [];
    },
    async submitOrder(options: SubmitOrderOptions) {
      calls.push("submitOrder");
      submitted.push(options);
      return script.submit ? script.submit() : { order_id: "B-new" };
    },
    async cancelOrder() {
      calls.push("cancelOrder");
    },
    async orderDetail() {
      calls.push("orderDetail");
      return { status: script.status ?? "NewStatus", msg: "", updated_at: "2024-03-15T14:00:00.000Z", submitted_at: "2024-03-15T13:59:00.000Z" };
    },
    async todayExecutions() {
      calls.push("todayExecutions");
      return script.executions ?? [];
    },
  } as unknown as OrderGateway;
  return { gateway, calls, submitted };
}

const order = (extra: Partial<EngineOrder> = {}): EngineOrder => ({
  order_id: "s-1",
  channel_id: "main",
  sleeve: "main/manual",
  symbol: "AAPL.US",
  side: "buy",
  order_type: "limit",
  quantity: 10,
  limit_price: 170.5,
  stop_price: null,
  submitted_at: 0,
  reason: "manual",
  ...extra,
});
const NOW = Date.parse("2024-03-15T14:00:30Z");

describe("exchanging orders with a broker", () => {
  it("sends an order the broker does not have, with the engine's order id as its client order id", async () => {
    const broker = scriptedBroker({});
    const [report] = await exchange(broker.gateway, [order()], NOW);
    expect(broker.submitted).toEqual([
      { symbol: "AAPL.US", side: "Buy", submitted_quantity: "10", time_in_force: "Day", remark: "s-1", order_type: "LO", submitted_price: "170.5" },
    ]);
    expect(report).toEqual({ order_id: "s-1", routed: "B-new", executions: [] });
  });

  it("does not send again an order the broker already holds under the engine's id", async () => {
    const broker = scriptedBroker({ orders: [{ order_id: "B-7", remark: "s-1" }] });
    const [report] = await exchange(broker.gateway, [order()], NOW);
    expect(broker.calls).not.toContain("submitOrder");
    expect(report!.routed).toBe("B-7");
  });

  it("reads an order's status before its executions, so fills of an order that ended in between are not lost", async () => {
    const broker = scriptedBroker({
      status: "PartialWithdrawal",
      executions: [
        { trade_id: "T-1", quantity: "4", price: "170.5", trade_done_at: "2024-03-15T13:59:30.000Z" },
        { trade_id: "T-0", quantity: "1", price: "170", trade_done_at: "2024-03-15T13:59:10.000Z" },
      ],
    });
    const [report] = await exchange(broker.gateway, [order({ venue_order_id: "B-7", venue_trades: ["T-0"], filled: 1 })], NOW);
    expect(broker.calls).toEqual(["orderDetail", "todayExecutions"]);
    expect(report).toEqual({
      order_id: "s-1",
      executions: [{ trade_id: "T-1", quantity: 4, price: 170.5, at: Date.parse("2024-03-15T13:59:30Z") }],
      ended: { status: "cancelled", message: "PartialWithdrawal", at: Date.parse("2024-03-15T14:00:00Z") },
    });
  });

  it("forwards an asked-for cancel, and ends at once an order asked to cancel before it reached the broker", async () => {
    const routed = scriptedBroker({ status: "CanceledStatus" });
    const [first] = await exchange(routed.gateway, [order({ venue_order_id: "B-7", cancel_requested: true })], NOW);
    expect(routed.calls[0]).toBe("cancelOrder");
    expect(first!.ended!.status).toBe("cancelled");
    const unsent = scriptedBroker({});
    const [second] = await exchange(unsent.gateway, [order({ cancel_requested: true })], NOW);
    expect(unsent.calls).toEqual(["todayOrders"]);
    expect(second).toEqual({ order_id: "s-1", executions: [], ended: { status: "cancelled", message: "cancelled before it reached the venue", at: NOW } });
  });

  it("ends an order the broker refuses, and leaves one a busy broker did not decide for the next step", async () => {
    const refused = scriptedBroker({ submit: () => Promise.reject(new DomainError(400, "MARKET_CLOSED", "the market is closed")) });
    const [report] = await exchange(refused.gateway, [order()], NOW);
    expect(report!.ended).toEqual({ status: "rejected", message: "MARKET_CLOSED: the market is closed", at: NOW });
    const busy = scriptedBroker({ submit: () => Promise.reject(new DomainError(409, "PAPER_ACCOUNT_BUSY", "try again")) });
    await expect(exchange(busy.gateway, [order()], NOW)).rejects.toThrow("try again");
  });
});
