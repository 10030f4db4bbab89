import { describe, expect, it } from "vitest";
import { barsFrom } from "../strategies/test-bars";
import { TradingEngine } from "./engine";
import { singleStrategySetup } from "./testing/setups";

/** A broker-venue engine that has seen one bar of AAPL.US at 100, with a buy of 10 routed to the broker as `v1`. */
function routedBuy() {
  const setup = singleStrategySetup({ symbols: ["AAPL.US"], execution: { commission: { model: "percent", rate: 0 } } });
  const engine = new TradingEngine({ ...setup, venue: "broker", exits: undefined });
  for (const bar of barsFrom([100])) engine.onBar(bar, "1d");
  const { order } = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10 }, Date.UTC(2024, 0, 3, 15));
  engine.routed(order!.order_id, "v1");
  engine.drainEvents();
  return { engine, id: order!.order_id };
}

const held = (engine: TradingEngine) => Number(engine.view(null).positions.find((p) => p.symbol === "AAPL.US")?.quantity ?? 0);

describe("a broker's reports", () => {
  it("books an execution the broker lists after the order ended there, once, and keeps it through a snapshot", () => {
    const { engine, id } = routedBuy();
    const at = Date.UTC(2024, 0, 3, 16);
    engine.venueFill(id, "t1", 4, 100, at);
    engine.venueEnded(id, { status: "cancelled", message: "CanceledStatus" }, at + 1000);
    // The broker lists a second execution, done before the cancel, only now; and again on the next read.
    const restored = TradingEngine.restore(engine.setup, JSON.parse(JSON.stringify(engine.snapshot())));
    restored.venueFill(id, "t2", 3, 101, at + 500);
    restored.venueFill(id, "t2", 3, 101, at + 500);
    expect(held(restored)).toBe(7);
    const fills = restored.drainEvents().filter((e) => e.type === "order_filled");
    expect(fills.map((e) => [e.data.quantity, e.data.price, e.data.late, e.data.filled_quantity, e.data.remaining])).toEqual([[3, "101", true, 7, 3]]);
  });

  it("refuses an execution beyond the order's quantity with a critical alert, booking only what fits", () => {
    const { engine, id } = routedBuy();
    const at = Date.UTC(2024, 0, 3, 16);
    engine.venueFill(id, "t1", 8, 100, at);
    engine.venueFill(id, "t2", 5, 100, at + 1000);
    expect(held(engine)).toBe(10);
    const events = engine.drainEvents();
    const alert = events.find((e) => e.type === "alert")!;
    expect(alert.data).toMatchObject({ level: "critical", reason: "OVERFILL", values: { trade_id: "t2", executed: 5, booked: 2 } });
    // The order is done: a further execution books nothing and alerts again.
    engine.venueFill(id, "t3", 1, 100, at + 2000);
    expect(held(engine)).toBe(10);
    expect(engine.drainEvents().map((e) => e.type)).toEqual(["alert"]);
  });

  it("ends a refused order as rejected with the broker's code and message", () => {
    const { engine, id } = routedBuy();
    engine.venueEnded(id, { status: "rejected", message: "insufficient buying power", code: 602012 }, Date.UTC(2024, 0, 3, 16));
    const [rejected] = engine.drainEvents();
    expect(rejected).toMatchObject({
      type: "order_rejected",
      data: { reason: "VENUE_REJECTED", message: "insufficient buying power", values: { venue_code: 602012 } },
    });
    expect(engine.snapshot().pending).toEqual([]);
  });

  it("changes an order at the broker at once, and takes it back to the broker's terms when the broker refuses the change", () => {
    const { engine, id } = routedBuy();
    const at = Date.UTC(2024, 0, 3, 16);
    const { denials } = engine.replace(id, { quantity: 6 }, at)!;
    expect(denials).toEqual([]);
    expect(engine.snapshot().pending[0]).toMatchObject({ quantity: 6, venue_replace: { quantity: 10 } });
    engine.drainEvents();
    engine.venueReplaced(id, { message: "PROVIDER_REFUSED: quantity below the executed quantity", code: 602015 }, at + 1000);
    expect(engine.snapshot().pending[0]).toMatchObject({ quantity: 10 });
    expect(engine.snapshot().pending[0]!.venue_replace).toBeUndefined();
    const [back, warning] = engine.drainEvents();
    expect(back).toMatchObject({ type: "order_replaced", data: { quantity: 10, previous_quantity: 6, venue_code: 602015 } });
    expect(warning).toMatchObject({ type: "log", data: { level: "warning" } });
    // Taken: the new terms stand.
    engine.replace(id, { quantity: 8 }, at + 2000);
    engine.venueReplaced(id, null, at + 3000);
    expect(engine.snapshot().pending[0]).toMatchObject({ quantity: 8 });
    expect(engine.snapshot().pending[0]!.venue_replace).toBeUndefined();
  });

  it("stamps the routing when the worker learnt it, never before the order, and keeps a broker session's clock from going back with a bar fed late", () => {
    const setup = singleStrategySetup({ symbols: ["AAPL.US"], timeframe: "1m", execution: { commission: { model: "percent", rate: 0 } } });
    const engine = new TradingEngine({ ...setup, venue: "broker", exits: undefined });
    const open = Date.UTC(2024, 0, 3, 15);
    engine.onBar({ symbol: "AAPL.US", timestamp: open, open: 100, high: 100, low: 100, close: 100, volume: 1 }, "1m");
    const { order } = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10 }, open + 90_000);
    engine.routed(order!.order_id, "v1", open + 91_500);
    const routed = engine.drainEvents().find((e) => e.type === "order_routed")!;
    expect(routed.time).toBe(open + 91_500);
    // The bar of 15:01 reaches the run after the routing: what it causes is not stamped before it.
    engine.onBar({ symbol: "AAPL.US", timestamp: open + 60_000, open: 100, high: 100, low: 100, close: 100, volume: 1 }, "1m");
    expect(engine.clock).toBe(open + 120_000);
    engine.venueEnded(order!.order_id, { status: "cancelled", message: "gone" }, open + 100_000);
    expect(engine.drainEvents().every((e) => e.time >= open + 120_000)).toBe(true);
  });
});
