import { describe, expect, it } from "vitest";
import type { EngineOrder } from "../../engine/events";
import type { Order } from "../../provider/order-gateway";
import { mismatchText, venueMismatches } from "./venue-reconcile";

const engineOrder = (order_id: string, venue_order_id?: string): EngineOrder => ({
  order_id,
  channel_id: "main",
  sleeve: "main/0",
  symbol: "AAPL.US",
  side: "buy",
  order_type: "limit",
  quantity: 10,
  limit_price: 190,
  stop_price: null,
  submitted_at: 0,
  reason: "manual",
  ...(venue_order_id ? { venue_order_id } : {}),
});

const brokerOrder = (order_id: string, status: Order["status"], remark = ""): Order =>
  ({ order_id, status, remark, symbol: "AAPL.US", side: "Buy", quantity: "10" }) as Order;

const holdings = (quantity: string) => ({ channels: [{ account_channel: "lb", positions: [{ symbol: "AAPL.US", quantity } as never] }] });

describe("reconciling a broker account with its sessions' books", () => {
  it("names a working order no session placed, and not the sessions' own (by venue id or by remark) nor orders over", () => {
    const orders = [
      brokerOrder("B-1", "NewStatus", "s-1"),
      brokerOrder("B-2", "PartialFilledStatus"),
      brokerOrder("B-3", "NewStatus", "by hand"),
      brokerOrder("B-4", "FilledStatus", "by hand"),
      brokerOrder("B-5", "CanceledStatus"),
    ];
    const books = [{ session_id: "s", orders: [engineOrder("s-1"), engineOrder("s-2", "B-2")], positions: {} }];
    const mismatch = venueMismatches(orders, holdings("0"), books);
    expect(mismatch.foreign_orders.map((o) => o.order_id)).toEqual(["B-3"]);
    expect(mismatchText(mismatch)).toBe("order B-3 (Buy 10 AAPL.US, NewStatus) was placed by no session");
  });

  it("names a holding below what the sessions' books hold together, and lets shares beyond them be the owner's", () => {
    const books = [
      { session_id: "a", orders: [], positions: { "AAPL.US": 30 } },
      { session_id: "b", orders: [], positions: { "AAPL.US": 20 } },
    ];
    expect(venueMismatches([], holdings("40"), books).positions).toEqual([{ symbol: "AAPL.US", account: "40", sessions: "50" }]);
    expect(venueMismatches([], holdings("80"), books)).toEqual({ foreign_orders: [], positions: [] });
    expect(mismatchText(venueMismatches([], holdings("80"), books))).toBe("");
  });
});
