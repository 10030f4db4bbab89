import { describe, expect, it } from "vitest";
import { EventType } from "../engine/events";
import { orderChangeOf, orderTouched } from "./runs";

const run = { run_id: "run-1", session_id: "session-1" };
/** Data every order event carries enough of for its change to be built. */
const data = {
  order_id: "run-1-7",
  symbol: "AAPL.US",
  side: "buy",
  order_type: "limit",
  quantity: 10,
  limit_price: 101.5,
  price: 101.5,
  commission: "1.2",
  reason: "x",
  message: "m",
  venue_order_id: "v-1",
};

describe("orderTouched", () => {
  it("names, for every event type, the order record orderChangeOf creates or changes, and none where it makes no change", () => {
    for (const [sequence, type] of EventType.options.entries()) {
      const event = { sequence, time: Date.UTC(2024, 0, 2, 15), type, channel_id: "main", data };
      const change = orderChangeOf(event, run);
      const touched = orderTouched(event, run.run_id);
      expect({ type, touched }).toEqual({
        type,
        touched: change && { order_id: change.kind === "create" ? change.order.id : change.order_id, creates: change.kind === "create" },
      });
    }
    expect(orderTouched({ sequence: 4, time: 0, type: "order_denied", channel_id: "main", data }, run.run_id)).toEqual({ order_id: "run-1-d4", creates: true });
  });
});
