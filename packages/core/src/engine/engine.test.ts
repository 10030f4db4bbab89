import { describe, expect, it } from "vitest";
import { defaults as riskDefaults } from "../risk/risk";
import { barsFrom } from "../strategies/test-bars";
import { Fees } from "../fees/index";
import { Dec } from "../money/decimal";
import { TradingEngine } from "./engine";
import { Money } from "../money/money";
import { singleStrategySetup } from "./testing/setups";

/** An engine with a manual sleeve that has seen one bar of AAPL.US at `price`. */
function engineAt(price: number, options: Parameters<typeof singleStrategySetup>[0] = { symbols: ["AAPL.US"] }) {
  const engine = new TradingEngine(singleStrategySetup({ execution: { commission: { model: "percent", rate: 0.001 } }, ...options }));
  for (const bar of barsFrom([price])) engine.onBar(bar, "1d");
  engine.drainEvents();
  return engine;
}

describe("trading engine", () => {
  it("denies an order over the position limit as data, with the numbers behind it", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], risk: { ...riskDefaults(), max_position_size: 0.1 } });
    const { order, denials } = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 200 }, Date.UTC(2024, 0, 3));
    expect(order).toBeNull();
    expect(denials.map((d) => d.reason)).toEqual(["MAX_POSITION_EXCEEDED"]);
    expect(denials[0].values).toEqual({ position_value: 20000, equity: 100000, fraction: 0.2, max: 0.1 });
    const [event] = engine.drainEvents();
    expect(event).toMatchObject({ type: "order_denied", channel_id: "main", data: { reason: "MAX_POSITION_EXCEEDED", quantity: 200 } });
  });

  it("check lists every rule an order breaks without placing it", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], risk: { ...riskDefaults(), max_order_notional: 1000 }, lots: { "AAPL.US": 10 } });
    const denials = engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 2005 });
    expect(denials.map((d) => d.reason)).toEqual([
      "INVALID_LOT_SIZE",
      "INSUFFICIENT_CASH",
      "NOTIONAL_EXCEEDS_MAX_PER_ORDER",
      "MAX_POSITION_EXCEEDED",
      "MAX_EXPOSURE_EXCEEDED",
      "MAX_LOSS_PER_TRADE_EXCEEDED",
    ]);
    expect(engine.drainEvents()).toEqual([]);
  });

  it("denies a limit price off the tick grid, with the rules the paper broker refuses by, and lets a whole odd holding go", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], lots: { "AAPL.US": 10 } });
    const off = engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10, order_type: "limit", price: 99.995 });
    expect(off).toEqual([
      {
        reason: "INVALID_TICK_SIZE",
        message: "price=99.995 is not on the tick grid: the tick size at this price is 0.01 (nearest valid prices 99.99 and 100)",
        values: { price: 99.995, tick_size: 0.01, below: 99.99, above: 100 },
      },
    ]);
    expect(engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10, order_type: "limit", price: 99.99 })).toEqual([]);
    // A market order's price is the market's: no grid to check.
    expect(engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10, price: 99.995 })).toEqual([]);
  });

  it("warms a fresh run's strategies up on history without trading it, so the first live cross trades", () => {
    const setup = singleStrategySetup({
      symbols: ["AAPL.US"],
      parameters: { fast_period: 3, slow_period: 5 },
      execution: { commission: { model: "percent", rate: 0.001 } },
    });
    // Six falling days, then rising ones: the 3-day average crosses above the 5-day one on the third rising day.
    const bars = barsFrom([110, 108, 106, 104, 102, 100, 101, 103, 106, 110, 115]);
    const history = bars.slice(0, 6);
    const live = bars.slice(6);

    const warmed = new TradingEngine(setup);
    const [need] = warmed.warmupNeeds();
    expect(need).toEqual({ symbol: "AAPL.US", timeframe: "1d", bars: 6 });
    warmed.warmUp(need, history);
    expect(warmed.drainEvents().map((e) => [e.type, e.data.level, e.data.warm_up])).toEqual([
      ["log", "info", { symbol: "AAPL.US", timeframe: "1d", bars: 6, wanted: 6 }],
    ]);
    expect(warmed.snapshot().last_price).toEqual({ "AAPL.US": 100 });
    // The warm-up survives a snapshot, as the run stores it.
    const restored = TradingEngine.restore(setup, JSON.parse(JSON.stringify(warmed.snapshot())));
    for (const bar of live) restored.onBar(bar, "1d");
    const submitted = restored.drainEvents().filter((e) => e.type === "order_submitted");
    expect(submitted.map((e) => [e.time, e.data.side])).toEqual([[live[2].timestamp + 86_400_000, "buy"]]);

    // Without the history the slow average is not even full by then.
    const cold = new TradingEngine(setup);
    for (const bar of live) cold.onBar(bar, "1d");
    expect(cold.drainEvents().filter((e) => e.type === "order_submitted")).toEqual([]);
  });

  it("holds a pending buy's commission with its cost, as the paper broker does, so free cash is never promised twice", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], execution: { commission: { model: "percent", rate: 0.01 } } });
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 900, order_type: "limit", price: 100 }, Date.UTC(2024, 0, 2, 21));
    // 100,000 less 900 × 100 and its 1 % commission leaves 9,100 free: 90 more shares fit (9,090), 91 do not (9,191).
    expect(engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 90 })).toEqual([]);
    expect(engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 91 })).toEqual([
      {
        reason: "INSUFFICIENT_CASH",
        message: "order cost 9191.00 USD exceeds free cash 9100.00",
        values: { cost: "9191.00", free_cash: "9100.00", currency: "USD" },
      },
    ]);
  });

  it("fills a market order at the next bar's open and books cash, cost and commission exactly", () => {
    const engine = engineAt(100);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 3 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 101.1, high: 102, low: 100, close: 101.5, volume: 1 }, "1d");
    const fill = engine.drainEvents().find((e) => e.type === "order_filled")!;
    expect(fill.data).toMatchObject({ quantity: 3, price: "101.1", commission: "0.3033" });
    const view = engine.view("main");
    expect(view.cash).toEqual({ USD: "99696.3967" });
    expect(view.positions[0]).toMatchObject({ quantity: 3, cost: "303.6033", last_price: 101.5 });
  });

  it("under max_participation fills an order in whole lots of its share of each bar's volume, across bars, and restores mid-way", () => {
    const options = {
      symbols: ["AAPL.US"],
      lots: { "AAPL.US": 100 },
      execution: { commission: { model: "percent" as const, rate: 0.001 }, max_participation: 0.1 },
    };
    const engine = engineAt(100, options);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 500 }, Date.UTC(2024, 0, 2, 21));
    const bar = (day: number, open: number, volume: number) => ({
      symbol: "AAPL.US",
      timestamp: Date.UTC(2024, 0, day),
      open,
      high: open + 1,
      low: open - 1,
      close: open,
      volume,
    });
    // 10 % of 2,350 is 235 shares: two lots a bar.
    engine.onBar(bar(3, 101, 2350), "1d");
    const first = engine.drainEvents();
    const snapshot = JSON.parse(JSON.stringify(engine.snapshot()));
    const rest = [bar(4, 102, 2350), bar(5, 103, 900), bar(8, 104, 5000)];
    for (const next of rest) engine.onBar(next, "1d");
    const events = engine.drainEvents();
    const fills = [...first, ...events].filter((e) => e.type === "order_filled").map((e) => e.data);
    expect(fills.map((f) => [f.quantity, f.price, f.filled_quantity, f.remaining])).toEqual([
      [200, "101", 200, 300],
      [200, "102", 400, 100],
      // 10 % of 900 is 90 shares, less than a lot: nothing fills on the 5th.
      [100, "104", 500, 0],
    ]);
    expect(fills[2]).toMatchObject({ average_price: "102", total_commission: "51" });
    expect(engine.view("main").pending_orders).toEqual([]);
    expect(engine.view("main").positions[0]).toMatchObject({ quantity: 500 });

    const restored = TradingEngine.restore(engineAt(100, options).setup, snapshot);
    for (const next of rest) restored.onBar(next, "1d");
    expect(restored.drainEvents()).toEqual(events);
  });

  it("charges an order filled in parts under the broker's schedule by the one rule: its minimum once per order, as the paper broker does", () => {
    // LongPort's US commission: 0.0049 a share, at least 0.99 an order.
    const options = {
      symbols: ["AAPL.US"],
      fees: Fees.defaults("longport"),
      execution: { commission: { model: "broker" as const, broker_type: "longport" }, max_participation: 0.5 },
    };
    const engine = engineAt(100, options);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 60 }, Date.UTC(2024, 0, 2, 21));
    const bar = (day: number, volume: number) => ({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, day), open: 100, high: 101, low: 99, close: 100, volume });
    // Half of each bar's 40 shares: three parts of 20.
    for (const day of [3, 4, 5]) engine.onBar(bar(day, 40), "1d");
    const fills = engine
      .drainEvents()
      .filter((e) => e.type === "order_filled")
      .map((e) => e.data);
    expect(fills.map((f) => f.filled_quantity)).toEqual([20, 40, 60]);
    // The order's charges are the schedule on all 60 shares, as one order: not three minimums.
    const whole = Fees.chargesOn(Fees.defaults("longport"), "US", "buy", Money.of(60), Money.of(6000), "2024-01-05").total;
    expect(fills[2]!.total_commission).toBe(whole.toString());
    const perPart = Fees.chargesOn(Fees.defaults("longport"), "US", "buy", Money.of(20), Money.of(2000), "2024-01-03").total;
    expect(new Dec(fills[0]!.commission as string).eq(perPart.toDec())).toBe(true);
    expect(new Dec(whole.toString()).lt(perPart.toDec().times(3))).toBe(true);
  });

  it("under max_participation lets nothing trade on a bar without a volume", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], execution: { commission: { model: "percent", rate: 0.001 }, max_participation: 0.5 } });
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10 }, Date.UTC(2024, 0, 2, 21));
    for (const volume of [NaN, 0])
      engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, volume === 0 ? 4 : 3), open: 100, high: 101, low: 99, close: 100, volume }, "1d");
    expect(engine.drainEvents().filter((e) => e.type === "order_filled")).toEqual([]);
    expect(engine.view("main").pending_orders).toHaveLength(1);
  });

  it("trades a part-filled stop's remainder at later opens: it has triggered", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], execution: { commission: { model: "percent", rate: 0 }, max_participation: 0.5 } });
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 300 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 100, high: 101, low: 99, close: 100, volume: 1000 }, "1d");
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "sell", quantity: 300, order_type: "stop", price: 95 }, Date.UTC(2024, 0, 3, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 4), open: 99, high: 99, low: 94, close: 96, volume: 400 }, "1d");
    // The market came back above the stop: the triggered remainder still trades, at the open.
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 5), open: 97, high: 98, low: 96, close: 97, volume: 400 }, "1d");
    const sells = engine
      .drainEvents()
      .filter((e) => e.type === "order_filled" && e.data.side === "sell")
      .map((e) => [e.data.quantity, e.data.price]);
    expect(sells).toEqual([
      [200, "95"],
      [100, "97"],
    ]);
  });

  it("refuses to replace a part-filled order with no more than what has filled", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], execution: { commission: { model: "percent", rate: 0.001 }, max_participation: 0.5 } });
    const { order } = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 300 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 100, high: 101, low: 99, close: 100, volume: 200 }, "1d");
    const refused = engine.replace(order!.order_id, { quantity: 100 }, Date.UTC(2024, 0, 3, 22))!;
    expect(refused.denials).toEqual([
      { reason: "QUANTITY_BELOW_EXECUTED", message: "quantity=100 must exceed the 100 shares already filled", values: { quantity: 100, filled: 100 } },
    ]);
    expect(engine.replace(order!.order_id, { quantity: 150 }, Date.UTC(2024, 0, 3, 22))!.denials).toEqual([]);
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 4), open: 100, high: 101, low: 99, close: 100, volume: 1000 }, "1d");
    expect(engine.view("main").positions[0]).toMatchObject({ quantity: 150 });
  });

  it("replaces a pending limit order in place: the new price decides the fill, its own cash is not counted twice, denials leave it as it was", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], risk: { ...riskDefaults(), max_position_size: 1, max_daily_trades: 1, max_loss_per_trade: 1 } });
    const { order } = engine.submit(
      { channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 900, order_type: "limit", price: 90 },
      Date.UTC(2024, 0, 2, 21),
    );
    // 900 at 110 is within cash only if the order's own promise (900 at 90) is released first; one order a day is allowed and a replacement is not a new one.
    const replaced = engine.replace(order!.order_id, { price: 95 }, Date.UTC(2024, 0, 2, 22))!;
    expect(replaced.denials).toEqual([]);
    expect(replaced.order).toMatchObject({ quantity: 900, limit_price: 95 });
    const refused = engine.replace(order!.order_id, { quantity: 2000 }, Date.UTC(2024, 0, 2, 22))!;
    expect(refused.denials.map((d) => d.reason)).toContain("INSUFFICIENT_CASH");
    expect(engine.view("main").pending_orders[0]).toMatchObject({ quantity: 900, limit_price: 95 });
    expect(engine.drainEvents().map((e) => [e.type, e.data.previous_price ?? e.data.level])).toEqual([
      ["order_submitted", undefined],
      ["order_replaced", 90],
      ["log", "warning"],
    ]);
    // The bar's low (94) reaches 95, not 90: the replaced price fills.
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 99, high: 100, low: 94, close: 96, volume: 1 }, "1d");
    expect(engine.drainEvents().find((e) => e.type === "order_filled")!.data).toMatchObject({ quantity: 900, price: "95" });
    expect(engine.replace(order!.order_id, { price: 1 }, Date.UTC(2024, 0, 3, 22))).toBeNull();
  });

  it("on a broker venue, books the broker's executions (in parts, each trade once) and ends orders only when the broker says so", () => {
    const setup = { ...singleStrategySetup({ symbols: ["AAPL.US"], execution: { commission: { model: "percent", rate: 0.001 } } }), venue: "broker" as const };
    const engine = new TradingEngine(setup);
    for (const bar of barsFrom([100])) engine.onBar(bar, "1d");
    engine.drainEvents();
    const { order } = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10 }, Date.UTC(2024, 0, 2, 21));
    // Bars do not fill it: the broker does.
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3, 14, 30), open: 101, high: 102, low: 100, close: 101, volume: 1 }, "1m");
    expect(engine.view("main").pending_orders).toHaveLength(1);
    engine.routed(order!.order_id, "B-1");
    engine.routed(order!.order_id, "B-2");
    engine.venueFill(order!.order_id, "T-1", 4, 101.5, Date.UTC(2024, 0, 3, 15));
    engine.venueFill(order!.order_id, "T-1", 4, 101.5, Date.UTC(2024, 0, 3, 15));
    // Cash 99,593.594 after the part; the order still promises its 6 unfilled shares (606 at the last close), not 10.
    const cashDenied = (quantity: number) =>
      engine
        .check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity, order_type: "limit", price: 101 })
        .some((d) => d.reason === "INSUFFICIENT_CASH");
    expect([cashDenied(979), cashDenied(981)]).toEqual([false, true]);
    // A snapshot between the two parts continues exactly.
    const resumed = TradingEngine.restore(setup, engine.snapshot());
    for (const e of [engine, resumed]) e.venueFill(order!.order_id, "T-2", 6, 102, Date.UTC(2024, 0, 3, 15, 1));
    const events = engine.drainEvents().filter((e) => e.type.startsWith("order_"));
    expect(resumed.drainEvents().filter((e) => e.type.startsWith("order_"))).toEqual(events.slice(-1));
    expect(events.map((e) => [e.type, e.data.venue_order_id ?? e.data.quantity])).toEqual([
      ["order_submitted", 10],
      ["order_routed", "B-1"],
      ["order_filled", 4],
      ["order_filled", 6],
    ]);
    // Totals: 4 × 101.5 + 6 × 102 = 1018 for 10 shares; 0.1 % commission on each part.
    expect(events[3].data).toMatchObject({ filled_quantity: 10, remaining: 0, average_price: "101.8", total_commission: "1.018" });
    expect(engine.view("main").pending_orders).toHaveLength(0);
    expect(engine.view("main").cash).toEqual({ USD: "98980.982" });

    // A cancel is asked, not done; the broker's answer ends the order; the day end leaves a broker's orders to the broker.
    // One the close overtook before it was sent expires at the day end.
    const { order: resting } = engine.submit(
      { channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 1, order_type: "limit", price: 50 },
      Date.UTC(2024, 0, 3, 16),
    );
    const { order: late } = engine.submit(
      { channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 1, order_type: "limit", price: 51 },
      Date.UTC(2024, 0, 3, 16),
    );
    engine.routed(resting!.order_id, "B-3");
    expect(engine.cancel(resting!.order_id, Date.UTC(2024, 0, 3, 16), "on request")).toBe(true);
    engine.endDay(Date.UTC(2024, 0, 3, 21));
    expect(engine.view("main").pending_orders.map((o) => o.order_id)).toEqual([resting!.order_id]);
    engine.venueEnded(resting!.order_id, { status: "cancelled", message: "cancelled at the broker" }, Date.UTC(2024, 0, 3, 21, 1));
    const drained = engine.drainEvents();
    const ended = drained.filter((e) => e.data.order_id === resting!.order_id).map((e) => e.type);
    expect(ended).toEqual(["order_submitted", "order_routed", "order_cancel_requested", "order_cancelled"]);
    expect(drained.filter((e) => e.data.order_id === late!.order_id).map((e) => [e.type, e.time, e.data.expired ?? null])).toEqual([
      ["order_submitted", Date.UTC(2024, 0, 3, 16), null],
      ["order_cancelled", Date.UTC(2024, 0, 3, 21), true],
    ]);
    expect(engine.view("main").pending_orders).toHaveLength(0);
  });

  it("fills at the signal bar's close when the rule says close, with slippage against the trader", () => {
    const engine = new TradingEngine(
      singleStrategySetup({
        symbols: ["AAPL.US"],
        parameters: { fast_period: 2, slow_period: 3 },
        execution: { fill: "close", slippage_bps: 10, commission: { model: "percent", rate: 0 } },
      }),
    );
    for (const bar of barsFrom([10, 9, 8, 9, 11])) engine.onBar(bar, "1d");
    const fill = engine.drainEvents().find((e) => e.type === "order_filled")!;
    expect(fill.data).toMatchObject({ side: "buy", price: String(11 * 1.001) });
    expect(fill.time).toBe(barsFrom([10, 9, 8, 9, 11])[4].timestamp + 86_400_000);
  });

  it("a paused channel keeps its position and places nothing; resumed, it trades again", () => {
    const engine = engineAt(100);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 5 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 100, high: 100, low: 100, close: 100, volume: 1 }, "1d");
    engine.setChannelState("main", "paused", Date.UTC(2024, 0, 3, 22));
    const denied = engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 1 }, Date.UTC(2024, 0, 3, 22));
    expect(denied.denials.map((d) => d.reason)).toEqual(["CHANNEL_NOT_RUNNING"]);
    expect(engine.view("main").positions[0].quantity).toBe(5);
    engine.setChannelState("main", "running", Date.UTC(2024, 0, 3, 23));
    expect(engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "sell", quantity: 5 }, Date.UTC(2024, 0, 3, 23)).denials).toEqual([]);
    const statuses = engine
      .drainEvents()
      .filter((e) => e.type === "channel_status")
      .map((e) => e.data.status);
    expect(statuses).toEqual(["paused", "running"]);
  });

  it("halts new entries after the drawdown limit and still lets positions close", () => {
    const engine = engineAt(100, { symbols: ["AAPL.US"], risk: { ...riskDefaults(), max_position_size: 1, max_loss_per_trade: 1, max_drawdown: 0.05 } });
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 900 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 100, high: 100, low: 90, close: 90, volume: 1 }, "1d");
    const events = engine.drainEvents();
    const alert = events.find((e) => e.type === "alert")!;
    expect(alert.data).toMatchObject({ level: "critical", type: "risk_limit", reason: "MAX_DRAWDOWN_BREACHED" });
    expect(engine.check({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 1 }).map((d) => d.reason)).toContain("CHANNEL_HALTED");
    expect(engine.check({ channel_id: "main", symbol: "AAPL.US", side: "sell", quantity: 900 })).toEqual([]);
  });

  it("books a closed round trip with its net P&L", () => {
    const engine = engineAt(100);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 10 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 100, high: 100, low: 100, close: 100, volume: 1 }, "1d");
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "sell", quantity: 10 }, Date.UTC(2024, 0, 3, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 4), open: 110, high: 110, low: 110, close: 110, volume: 1 }, "1d");
    const closed = engine.drainEvents().find((e) => e.type === "trade_closed")!;
    // 1100 − 1.1 − (1000 + 1) = 97.9
    expect(closed.data).toMatchObject({ pnl: "97.9", fees: "2.1", quantity: 10, entry_price: 100, exit_price: 110, direction: "long" });
    expect(engine.view(null).stats).toMatchObject({ closed_trades: 1, wins: 1, realized: "97.9" });
  });

  it("waits for a limit price the bar range reaches", () => {
    const engine = engineAt(100);
    engine.submit({ channel_id: "main", symbol: "AAPL.US", side: "buy", quantity: 1, order_type: "limit", price: 95 }, Date.UTC(2024, 0, 2, 21));
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 3), open: 99, high: 101, low: 96, close: 97, volume: 1 }, "1d");
    expect(engine.drainEvents().some((e) => e.type === "order_filled")).toBe(false);
    engine.onBar({ symbol: "AAPL.US", timestamp: Date.UTC(2024, 0, 4), open: 96, high: 97, low: 94, close: 95, volume: 1 }, "1d");
    expect(engine.drainEvents().find((e) => e.type === "order_filled")!.data).toMatchObject({ price: "95" });
  });
});
