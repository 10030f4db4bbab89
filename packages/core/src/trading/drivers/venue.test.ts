import { describe, expect, it } from "vitest";
import { DomainError } from "../../errors";
import type { EngineOrder } from "../../engine/events";
import type { Execution, Order, OrderDetail, OrderGateway, SubmitOrderOptions } from "../../provider/order-gateway";
import { exchange, VENUE_WAIT_MS, VenueReads } from "./venue";

/** A broker that answers from a script: what `exchange` asks of it, and in which order, is recorded. */
function scriptedBroker(script: {
  orders?: Partial<Order>[];
  status?: OrderDetail["status"];
  executions?: Partial<Execution>[];
  submit?: (options: SubmitOrderOptions) => Promise<{ order_id: string }>;
  replace?: () => Promise<void>;
}) {
  const calls: string[] = [];
  const replaced: unknown[] = [];
  const submitted: SubmitOrderOptions[] = [];
  const gateway = {
    async todayOrders() {
      calls.push("todayOrders");
      return script.orders ?? [];
    },
    async submitOrder(options: SubmitOrderOptions) {
      calls.push("submitOrder");
      submitted.push(options);
      return script.submit ? script.submit(options) : { order_id: "B-new" };
    },
    async cancelOrder() {
      calls.push("cancelOrder");
    },
    async replaceOrder(options: unknown) {
      calls.push("replaceOrder");
      replaced.push(options);
      if (script.replace) await script.replace();
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
  return { gateway, calls, submitted, replaced, reads: () => new VenueReads(gateway) };
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
  it("sends, cancels and reads nothing while the account's rate limit would hold a call longer than VENUE_WAIT_MS, and says so (deferred)", async () => {
    const broker = scriptedBroker({});
    let backlog = VENUE_WAIT_MS + 1;
    const gateway = Object.assign(broker.gateway, { backlogMs: () => backlog });
    const resting = order({ order_id: "s-2", venue_order_id: "B-2", cancel_requested: true });
    const busy = await exchange(new VenueReads(gateway), [order(), resting], NOW, { read: true });
    expect(busy).toEqual({ reports: [], deferred: true });
    expect(broker.calls).toEqual([]);
    // Within the limit: the unsent order goes out, the cancel is forwarded, and both are read back (each on its own, the script's lists lacking them).
    backlog = VENUE_WAIT_MS;
    const free = await exchange(new VenueReads(gateway), [order(), resting], NOW, { read: true });
    expect(free.deferred).toBeUndefined();
    expect(broker.calls).toEqual(["todayOrders", "submitOrder", "cancelOrder", "todayOrders", "todayExecutions", "orderDetail", "orderDetail"]);
  });

  it("sends an order the broker does not have, with the engine's order id as its client order id", async () => {
    const broker = scriptedBroker({});
    const { reports } = await exchange(broker.reads(), [order()], NOW);
    expect(broker.submitted).toEqual([
      { symbol: "AAPL.US", side: "Buy", submitted_quantity: "10", time_in_force: "Day", remark: "s-1", order_type: "LO", submitted_price: "170.5" },
    ]);
    expect(reports).toEqual([{ order_id: "s-1", routed: "B-new", routed_at: NOW, executions: [] }]);
  });

  it("does not send again an order the broker already holds under the engine's id", async () => {
    const broker = scriptedBroker({ orders: [{ order_id: "B-7", remark: "s-1", status: "NewStatus" }] });
    const { reports } = await exchange(broker.reads(), [order()], NOW);
    expect(broker.calls).not.toContain("submitOrder");
    expect(reports[0]!.routed).toBe("B-7");
  });

  it("reads the account's orders before its executions, once for all its orders, and an order the day's list lacks on its own", async () => {
    const broker = scriptedBroker({
      orders: [{ order_id: "B-7", status: "PartialWithdrawal", msg: "", updated_at: "2024-03-15T14:00:00.000Z", submitted_at: "2024-03-15T13:00:00.000Z" }],
      executions: [
        { order_id: "B-7", trade_id: "T-1", quantity: "4", price: "170.5", trade_done_at: "2024-03-15T13:59:30.000Z" },
        { order_id: "B-7", trade_id: "T-0", quantity: "1", price: "170", trade_done_at: "2024-03-15T13:59:10.000Z" },
        { order_id: "B-9", trade_id: "T-2", quantity: "1", price: "170", trade_done_at: "2024-03-15T13:59:10.000Z" },
      ],
    });
    const older = order({ order_id: "s-2", venue_order_id: "B-8" });
    const { reports } = await exchange(broker.reads(), [order({ venue_order_id: "B-7", venue_trades: ["T-0"], filled: 1 }), older], NOW, { read: true });
    expect(broker.calls).toEqual(["todayOrders", "todayExecutions", "orderDetail"]);
    expect(reports).toEqual([
      {
        order_id: "s-1",
        executions: [{ trade_id: "T-1", quantity: 4, price: 170.5, at: Date.parse("2024-03-15T13:59:30Z") }],
        ended: { status: "cancelled", message: "PartialWithdrawal", at: Date.parse("2024-03-15T14:00:00Z") },
      },
    ]);
  });

  it("reads nothing when no push and no poll asks it to and nothing was sent; the sessions of one account share one read", async () => {
    const broker = scriptedBroker({ orders: [{ order_id: "B-7", status: "NewStatus", submitted_at: "2024-03-15T13:00:00.000Z" }] });
    const reads = broker.reads();
    await exchange(reads, [order({ venue_order_id: "B-7" })], NOW);
    expect(broker.calls).toEqual([]);
    await exchange(reads, [order({ venue_order_id: "B-7" })], NOW, { read: true });
    await exchange(reads, [order({ order_id: "t-1", venue_order_id: "B-7" })], NOW, { read: true });
    expect(broker.calls).toEqual(["todayOrders", "todayExecutions"]);
  });

  it("books an execution the broker lists for an order that ended already", async () => {
    const broker = scriptedBroker({
      executions: [{ order_id: "B-7", trade_id: "T-3", quantity: "2", price: "171", trade_done_at: "2024-03-15T13:58:00.000Z" }],
    });
    const ended = order({ venue_order_id: "B-7", venue_trades: ["T-1"], filled: 4 });
    const { reports } = await exchange(broker.reads(), [], NOW, { read: true, ended: [ended] });
    expect(reports).toEqual([{ order_id: "s-1", executions: [{ trade_id: "T-3", quantity: 2, price: 171, at: Date.parse("2024-03-15T13:58:00Z") }] }]);
  });

  it("forwards an asked-for cancel, and ends at once an order asked to cancel before it reached the broker", async () => {
    const routed = scriptedBroker({ status: "CanceledStatus" });
    const { reports: first } = await exchange(routed.reads(), [order({ venue_order_id: "B-7", cancel_requested: true })], NOW);
    expect(routed.calls[0]).toBe("cancelOrder");
    expect(first[0]!.ended!.status).toBe("cancelled");
    const unsent = scriptedBroker({});
    const { reports: second } = await exchange(unsent.reads(), [order({ cancel_requested: true })], NOW);
    expect(unsent.calls).toEqual(["todayOrders"]);
    expect(second).toEqual([{ order_id: "s-1", executions: [], ended: { status: "cancelled", message: "cancelled before it reached the venue", at: NOW } }]);
  });

  it("ends an order the broker refuses as rejected with its code, and sends the next order", async () => {
    const broker = scriptedBroker({
      submit: (options) =>
        options.remark === "s-1"
          ? Promise.reject(
              new DomainError(422, "PROVIDER_REFUSED", "LongPort refused submitOrder: insufficient buying power (code 602012)", { provider_code: 602012 }),
            )
          : Promise.resolve({ order_id: "B-2" }),
    });
    const { reports } = await exchange(broker.reads(), [order(), order({ order_id: "s-2" })], NOW);
    expect(reports[0]!.ended).toEqual({
      status: "rejected",
      code: 602012,
      message: "PROVIDER_REFUSED: LongPort refused submitOrder: insufficient buying power (code 602012)",
      at: NOW,
    });
    expect(reports[1]).toMatchObject({ order_id: "s-2", routed: "B-2" });
  });

  it("leaves an order whose send timed out or was throttled for a later step, which looks it up by its remark before sending again", async () => {
    let taken = false;
    const broker = scriptedBroker({
      submit: async () => {
        taken = true;
        throw new DomainError(504, "PROVIDER_TIMEOUT", "LongPort did not answer submitOrder in time");
      },
    });
    const first = await exchange(broker.reads(), [order(), order({ order_id: "s-2" })], NOW);
    expect(first).toEqual({ reports: [], retryAfterMs: 1000 });
    expect(taken).toBe(true);
    // The broker did take it: the next step finds it by its remark and sends nothing.
    const found = scriptedBroker({ orders: [{ order_id: "B-5", remark: "s-1", status: "NewStatus", submitted_at: "2024-03-15T13:00:00.000Z" }] });
    const { reports } = await exchange(found.reads(), [order()], NOW);
    expect(found.calls).not.toContain("submitOrder");
    expect(reports[0]!.routed).toBe("B-5");
    const throttled = scriptedBroker({ submit: () => Promise.reject(new DomainError(429, "PROVIDER_RATE_LIMITED", "slow down", { retry_after: 2 })) });
    expect(await exchange(throttled.reads(), [order()], NOW)).toEqual({ reports: [], retryAfterMs: 2000 });
  });

  it("sends a replacement of an order the broker holds, and reports it taken or refused", async () => {
    const changed = order({ venue_order_id: "B-7", quantity: 6, limit_price: 171, venue_replace: { quantity: 10, limit_price: 170.5, stop_price: null } });
    const taken = scriptedBroker({});
    const { reports } = await exchange(taken.reads(), [changed], NOW);
    expect(taken.replaced).toEqual([{ order_id: "B-7", quantity: "6", price: "171" }]);
    expect(reports).toEqual([{ order_id: "s-1", executions: [], replaced: { at: NOW } }]);
    const refused = scriptedBroker({ replace: () => Promise.reject(new DomainError(422, "PROVIDER_REFUSED", "no", { provider_code: 602015 })) });
    const { reports: back } = await exchange(refused.reads(), [changed], NOW);
    expect(back[0]!.replaced).toEqual({ refused: { message: "PROVIDER_REFUSED: no", code: 602015 }, at: NOW });
  });
});
