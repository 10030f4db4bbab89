import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Dec } from "../../money/decimal";
import { EventType } from "../../engine/events";
import { categoryOf, levelOf, orderChangeOf, orderTouched, storedEvent } from "./runs";

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

describe("a fill's price as answered", () => {
  it("is decimal.js's text of the price to four places, half up, whatever form the price arrives in", () => {
    const answered = (price: string) => {
      const change = orderChangeOf({ sequence: 1, time: 0, type: "order_filled", channel_id: "main", data: { ...data, price } }, run);
      return change?.kind === "set" ? change.fields.filled_price : undefined;
    };
    const decimals = fc
      .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }), fc.boolean())
      .map(([units, places, padded]) => {
        const digits = (units < 0n ? -units : units).toString().padStart(places + 1, "0");
        const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
        return `${units < 0n ? "-" : ""}${padded ? `0${text}0` : text}`;
      });
    fc.assert(
      fc.property(fc.oneof(decimals, fc.constantFrom("187.43", "0.0001", "0.00005", "-0", "1e21", "12.30", "0.5", "100")), (price) => {
        expect(answered(price)).toBe(new Dec(price).toDecimalPlaces(4).toString());
      }),
      { numRuns: 2000 },
    );
  });
});

describe("storedEvent", () => {
  it("is the event with its run, level and category, every field of the event kept", () => {
    for (const [sequence, type] of EventType.options.entries()) {
      const event = {
        sequence,
        time: Date.UTC(2024, 0, 2, 15),
        type,
        channel_id: sequence % 2 ? null : "main",
        data: { ...data, level: "warning", kind: "limit_breached" },
      };
      expect(storedEvent(event, "run-1")).toStrictEqual({ ...event, run_id: "run-1", level: levelOf(event), category: categoryOf(event) });
    }
  });
});
