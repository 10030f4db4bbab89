import { describe, expect, it } from "vitest";
import { defaults as riskDefaults } from "../risk/risk";
import type { Bar } from "../strategies/strategy";
import { TradingEngine } from "./engine";
import type { EngineEvent } from "./events";
import type { EngineSetup, ExitRules, ProtectiveExits } from "./setup";
import { singleStrategySetup } from "./testing/setups";

/**
 * The protective-exit rules the reference fixtures do not exercise (EXITS.md "What the data pins
 * down"), pinned on synthetic daily bars: a manual market entry, then bars chosen to put levels
 * within reach. The manual sleeve takes the setup's exits.
 */

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 2, 14, 30);

/** Daily bars from [open, high, low, close] rows, a day apart. */
const bars = (rows: [number, number, number, number][], symbol = "AAPL.US"): Bar[] =>
  rows.map(([open, high, low, close], i) => ({ symbol, timestamp: T0 + i * DAY, open, high, low, close, volume: 1_000_000 }));

function engineWith(exits: Partial<ProtectiveExits>, rules?: ExitRules, options: { allowShort?: boolean; venue?: EngineSetup["venue"] } = {}) {
  const setup = singleStrategySetup({
    symbols: ["AAPL.US"],
    // A strategy that never trades in these few bars: the orders are the test's own.
    parameters: { fast_period: 50, slow_period: 100 },
    risk: { ...riskDefaults(), max_position_size: 1, max_loss_per_trade: 1, allow_short: options.allowShort ?? false },
    execution: { commission: { model: "percent", rate: 0 }, ...(rules ? { exits: rules } : {}) },
  });
  return new TradingEngine({
    ...setup,
    exits: { stop_loss_pct: null, take_profit_pct: null, trailing_stop_pct: null, ...exits },
    ...(options.venue ? { venue: options.venue } : {}),
  });
}

/** Feeds a first bar (a price to order at), enters at the next bar's open, then feeds the rest; the events after the first bar. */
function enter(engine: TradingEngine, rows: [number, number, number, number][], side: "buy" | "sell" = "buy", quantity = 100): EngineEvent[] {
  const all = bars(rows);
  engine.onBar(all[0], "1d");
  engine.drainEvents();
  engine.submit({ channel_id: "main", symbol: "AAPL.US", side, quantity }, all[0].timestamp + DAY / 2);
  for (const bar of all.slice(1)) engine.onBar(bar, "1d");
  return engine.drainEvents();
}

const fills = (events: EngineEvent[]) =>
  events
    .filter((e) => e.type === "order_filled")
    .map((e) => ({ day: (e.time - T0) / DAY, side: e.data.side, price: Number(e.data.price), exit_reason: e.data.exit_reason ?? null }));

describe("protective exits on bars", () => {
  it("never tries a protective order on the bar that filled its entry, even when that bar's low is past the stop", () => {
    const events = enter(engineWith({ stop_loss_pct: 0.05 }), [
      [100, 100, 100, 100],
      [100, 101, 90, 99], // entry at 100; the low reaches 90 < 95, but the stop is not live yet
      [99, 100, 96, 97],
      [97, 98, 94, 95], // low 94 ≤ 95: the stop fills at 95
    ]);
    expect(fills(events)).toEqual([
      { day: 1, side: "buy", price: 100, exit_reason: null },
      { day: 3, side: "sell", price: 95, exit_reason: "stop_loss" },
    ]);
    const submitted = events.find((e) => e.type === "order_submitted" && e.data.exit_reason === "stop_loss")!;
    expect(submitted.time).toBe(T0 + 2 * DAY);
    expect(submitted.data).toMatchObject({ order_type: "stop", side: "sell", quantity: 100, stop_price: 95, basis: 100 });
  });

  it("fills a stop at the open when the bar opens through it (a gap), and at its level otherwise", () => {
    const events = enter(engineWith({ stop_loss_pct: 0.05 }), [
      [100, 100, 100, 100],
      [100, 101, 99, 100],
      [93, 94, 92, 93],
    ]);
    const exit = events.find((e) => e.type === "order_filled" && e.data.exit_reason === "stop_loss")!;
    expect(exit.data).toMatchObject({ price: "93", trigger_price: 95, gap: true });
  });

  it("fills the stop when one bar reaches both the stop and the target, and cancels the target (OCO)", () => {
    const events = enter(engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }), [
      [100, 100, 100, 100],
      [100, 101, 99, 100],
      [100, 111, 94, 105], // both 95 and 110 within the bar
    ]);
    expect(fills(events).slice(1)).toEqual([{ day: 2, side: "sell", price: 95, exit_reason: "stop_loss" }]);
    const cancelled = events.find((e) => e.type === "order_cancelled")!;
    expect(String(cancelled.data.reason)).toMatch(/^ONE_CANCELS_OTHER: stop_loss order /);
    const target = events.find((e) => e.type === "order_submitted" && e.data.exit_reason === "take_profit")!;
    expect(cancelled.data.order_id).toBe(target.data.order_id);
  });

  it("fills the target instead under priority take_profit (placed first, tried first)", () => {
    const events = enter(engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, { priority: "take_profit", trailing_reference: "close" }), [
      [100, 100, 100, 100],
      [100, 101, 99, 100],
      [100, 111, 94, 105],
    ]);
    expect(fills(events).slice(1)).toEqual([{ day: 2, side: "sell", price: 110.00000000000001, exit_reason: "take_profit" }]);
  });

  it("tries a trailing stop at its level before the bar's close raises it, and starts it from the entry bar's close", () => {
    const events = enter(engineWith({ trailing_stop_pct: 0.08 }), [
      [100, 100, 100, 100],
      [100, 106, 99, 105], // entry at 100, close 105: the first level is 105 - 105 × 0.08 = 96.6
      [105, 130, 96, 125], // tried at 96.6 first: the low reaches it before the close of 125 would raise it to 115
    ]);
    expect(fills(events).slice(1)).toEqual([{ day: 2, side: "sell", price: 96.6, exit_reason: "trailing_stop" }]);
  });

  it("raises a trailing stop on closes only, never lowers it, and on highs with trailing_reference extreme", () => {
    const rows: [number, number, number, number][] = [
      [100, 100, 100, 100],
      [100, 101, 99, 100], // level 92
      [100, 120, 99, 110], // close 110 → 101.2 (a high of 120 would give 110.4)
      [111, 112, 104, 105], // close 105 lowers nothing; the high-based level 110.4 fills here
      [105, 106, 101, 102], // low 101 ≤ 101.2
    ];
    expect(fills(enter(engineWith({ trailing_stop_pct: 0.08 }), rows)).slice(1)).toEqual([
      { day: 4, side: "sell", price: 101.2, exit_reason: "trailing_stop" },
    ]);
    expect(fills(enter(engineWith({ trailing_stop_pct: 0.08 }, { priority: "stop_loss", trailing_reference: "extreme" }), rows)).slice(1)).toEqual([
      { day: 3, side: "sell", price: 110.4, exit_reason: "trailing_stop" },
    ]);
  });

  it("protects a short with a buy stop above and a target below its entry", () => {
    const events = enter(
      engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 }, undefined, { allowShort: true }),
      [
        [100, 100, 100, 100],
        [100, 101, 99, 100],
        [100, 101, 89, 91], // low 89 ≤ 90: the target
      ],
      "sell",
    );
    const placed = events
      .filter((e) => e.type === "order_submitted" && e.data.exit_reason)
      .map((e) => [e.data.side, e.data.order_type, e.data.stop_price ?? e.data.limit_price]);
    expect(placed).toEqual([
      ["buy", "stop", 105],
      ["buy", "limit", 90],
    ]);
    expect(fills(events).slice(1)).toEqual([{ day: 2, side: "buy", price: 90, exit_reason: "take_profit" }]);
  });

  it("keeps the levels for what is left when part of the position is sold by hand, and cancels them when all of it is", () => {
    const engine = engineWith({ stop_loss_pct: 0.05 });
    enter(engine, [
      [100, 100, 100, 100],
      [100, 101, 99, 100],
    ]);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "sell", quantity: 40 }, T0 + 1.5 * DAY);
    for (const bar of bars([[100, 100, 100, 100]]).map((b) => ({ ...b, timestamp: T0 + 2 * DAY }))) engine.onBar(bar, "1d");
    const resized = engine.drainEvents().find((e) => e.type === "order_replaced")!;
    expect(resized.data).toMatchObject({ quantity: 60, previous_quantity: 100, stop_price: 95 });
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "sell", quantity: 60 }, T0 + 2.5 * DAY);
    for (const bar of bars([[100, 100, 100, 100]]).map((b) => ({ ...b, timestamp: T0 + 3 * DAY }))) engine.onBar(bar, "1d");
    const cancelled = engine.drainEvents().find((e) => e.type === "order_cancelled")!;
    expect(String(cancelled.data.reason)).toMatch(/^POSITION_CLOSED/);
    expect(engine.snapshot().pending).toEqual([]);
  });

  it("does not expire protective orders at the day's close, and keeps them through a snapshot", () => {
    const engine = engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1 });
    enter(engine, [
      [100, 100, 100, 100],
      [100, 101, 99, 100],
    ]);
    engine.endDay(T0 + DAY + 6.5 * 3_600_000);
    expect(engine.drainEvents().filter((e) => e.type === "order_cancelled")).toEqual([]);
    const restored = TradingEngine.restore(engine.setup, JSON.parse(JSON.stringify(engine.snapshot())));
    expect(restored.snapshot().pending.map((o) => o.exit_reason)).toEqual(["stop_loss", "take_profit"]);
    restored.onBar(bars([[99, 112, 98, 111]]).map((b) => ({ ...b, timestamp: T0 + 2 * DAY }))[0], "1d");
    expect(fills(restored.drainEvents())).toEqual([{ day: 2, side: "sell", price: 110.00000000000001, exit_reason: "take_profit" }]);
  });
});

describe("protective exits at a broker", () => {
  /** A broker-venue engine whose buy of 100 at 100.33 the broker has just reported filled; the protective orders it placed. */
  function filledAtBroker() {
    const engine = engineWith({ stop_loss_pct: 0.05, take_profit_pct: 0.1, trailing_stop_pct: 0.08 }, undefined, { venue: "broker" });
    engine.onBar(bars([[100, 100, 100, 100]])[0], "1d");
    const { order } = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 100 }, T0 + 3_600_000);
    engine.routed(order!.order_id, "v1");
    engine.drainEvents();
    engine.venueFill(order!.order_id, "t1", 100, 100.33, T0 + 2 * 3_600_000);
    const placed = engine.drainEvents().filter((e) => e.type === "order_submitted");
    return { engine, placed, ids: placed.map((e) => String(e.data.order_id)) };
  }

  it("rests the stop there on the tick grid towards the entry, and watches the target and the trailing stop, from the broker's fill", () => {
    const { placed } = filledAtBroker();
    // 100.33 × 0.95 = 95.3135 → 95.32 (up, towards the entry); the watched levels are the engine's own: × 1.1, and 100.33 − 8 %.
    expect(placed.map((e) => [e.data.exit_reason, e.data.order_type, e.data.stop_price ?? e.data.limit_price, e.data.watch ?? false, e.time])).toEqual([
      ["stop_loss", "stop", 95.32, false, T0 + 2 * 3_600_000],
      ["take_profit", "limit", 100.33 * 1.1, true, T0 + 2 * 3_600_000],
      ["trailing_stop", "trailing_stop", 100.33 - 100.33 * 0.08, true, T0 + 2 * 3_600_000],
    ]);
  });

  it("asks the broker to cancel the watched orders when the resting stop fills", () => {
    const { engine, ids } = filledAtBroker();
    const [stop, target, trailing] = ids;
    engine.routed(stop, "v2");
    engine.venueFill(stop, "t2", 100, 95.3, T0 + 5 * 3_600_000);
    const after = engine.drainEvents();
    expect(after.filter((e) => e.type === "order_cancel_requested").map((e) => e.data.order_id)).toEqual([target, trailing]);
    expect(after.find((e) => e.type === "trade_closed")!.data.exit_reason).toBe("stop_loss");
  });

  it("sends a watched target as a market order when a bar reaches it, and asks to cancel the resting stop first", () => {
    const { engine, ids } = filledAtBroker();
    const [stop, target] = ids;
    engine.routed(stop, "v2");
    engine.onBar(bars([[101, 111, 100, 110]]).map((b) => ({ ...b, timestamp: T0 + DAY }))[0], "1d");
    const events = engine.drainEvents();
    const fired = events.find((e) => e.type === "order_replaced")!;
    expect(fired).toMatchObject({ time: T0 + 2 * DAY, data: { order_id: target, order_type: "market" } });
    expect(events.filter((e) => e.type === "order_cancel_requested").map((e) => e.data.order_id)).toEqual([stop, ids[2]]);
    const sent = engine.snapshot().pending.find((o) => o.order_id === target)!;
    expect(sent).toMatchObject({ order_type: "market", limit_price: 100.33 * 1.1 });
    expect(sent.watch).toBeUndefined();
  });
});
