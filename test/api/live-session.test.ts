import { describe, expect, it } from "vitest";
import { Dec } from "../../packages/core/src/money/decimal";
import type { SessionWorker } from "../../packages/worker/src/session-worker";
import { liveSuite, pause } from "../support/live-suite";

/**
 * A live session end to end (issue 35): the service composed as it runs (the API, the session
 * worker, DynamoDB Local) with LongPort selected, talking through the real `longport` SDK to the
 * fake LongPort. Bars come from trades the fake pushes, orders go to its account, fills come back
 * from its pushes and lists; the session's books end equal to the account's to the cent.
 */
const START = "2024-03-15T19:30:00Z"; // a Friday, 15:30 in New York (EDT): half an hour before the close
const suite = liveSuite(START);
const { h, minute, atLongport } = suite;

const order = (id: string) => h.api.json("GET", `/api/v1/trading/orders/${id}`, 200, { token: h.token });

describe("a live session through LongPort's protocol", () => {
  let sessionId: string;
  let worker: SessionWorker;

  it("starts on the LongPort account, subscribes its feeds through the SDK and is fed bars built from pushed trades", async () => {
    const config = {
      channels: [
        {
          channel_id: "minutes",
          capital_allocation: 0.5,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 50, slow_period: 100 }, symbols: ["AAPL.US"], timeframe: "1m" }],
        },
        {
          channel_id: "days",
          capital_allocation: 0.5,
          strategies: [{ strategy_name: "ma_crossover", parameters: { fast_period: 50, slow_period: 100 }, symbols: ["AAPL.US"], timeframe: "1d" }],
        },
      ],
      // The fake charges no fee; positions up to the whole channel.
      execution: { commission: { model: "percent", rate: 0 } },
      risk_config: { max_position_size: 1, max_loss_per_trade: 0.1 },
    };
    const session = await h.api.json("POST", "/api/v1/trading/sessions", 201, {
      token: h.token,
      body: { session_name: "live through LongPort", trading_mode: "live", asset_mode: "real", initial_capital: "100000", config },
    });
    sessionId = session.id;
    await h.api.json("POST", `/api/v1/trading/sessions/${sessionId}/start`, 200, { token: h.token });
    worker = await h.newWorker();
    for (let i = 0; i < 3; i++) await minute(worker, 190);
    const run = (await h.api.services.trading.sessions.runs.get(sessionId))!;
    expect(run.progress?.cursor_ms).toBe(Date.parse("2024-03-15T19:33:00Z"));
  });

  const place = (body: Record<string, unknown>) =>
    h.api.json("POST", "/api/v1/trading/orders", 201, { token: h.token, body: { session_id: sessionId, channel_id: "minutes", symbol: "AAPL.US", ...body } });

  it("sends an order to LongPort and books its fill in two parts from LongPort's pushes; its protective stop rests there", async () => {
    const buy = await place({ side: "buy", quantity: "50", order_type: "limit", price: "190.5" });
    await minute(worker, 190);
    const sent = atLongport(buy.id)!;
    expect(sent).toMatchObject({ symbol: "AAPL.US", side: "Buy", quantity: 50, price: 190.5, timeInForce: "Day" });
    expect((await order(buy.id)).venue_order_id).toBe(sent.orderId);
    suite.fake.account.fill(sent.orderId, { quantity: 20, price: 190.1 });
    await pause(50);
    await minute(worker, 190);
    expect(await order(buy.id)).toMatchObject({ status: "partially_filled", filled_quantity: "20" });
    suite.fake.account.fill(sent.orderId, { quantity: 30, price: 190.2 });
    await pause(50);
    await minute(worker, 190);
    expect(await order(buy.id)).toMatchObject({ status: "filled", filled_quantity: "50", filled_price: "190.16" });
    // The default risk configuration's 5 % stop rests at LongPort as a good-till-cancelled market-if-touched order (its target is
    // watched): placed for the first 20 shares, then, the position grown, cancelled there (a step) and placed again for 50 once the cancel was confirmed (the next).
    await minute(worker, 190);
    await minute(worker, 190);
    const stops = [...suite.fake.account.orders.values()].filter((o) => o.orderType === "MIT");
    expect(stops.map((o) => [o.side, o.quantity, o.triggerPrice, o.timeInForce, o.status])).toEqual([
      ["Sell", 20, 180.6, "GTC", "CanceledStatus"],
      ["Sell", 50, 180.66, "GTC", "NewStatus"],
    ]);
  });

  it("replaces and cancels a resting order at LongPort", async () => {
    const resting = await place({ side: "buy", quantity: "10", order_type: "limit", price: "185" });
    await minute(worker, 190);
    const sent = atLongport(resting.id)!;
    const replaced = await h.api.json("PUT", `/api/v1/trading/orders/${resting.id}`, 200, { token: h.token, body: { price: "186", quantity: "12" } });
    expect(replaced).toMatchObject({ replaced: true });
    await minute(worker, 190);
    expect(suite.fake.account.order(sent.orderId)).toMatchObject({ price: 186, quantity: 12 });
    await h.api.json("POST", `/api/v1/trading/orders/${resting.id}/cancel`, 200, { token: h.token });
    await minute(worker, 190);
    expect(suite.fake.account.order(sent.orderId).status).toBe("CanceledStatus");
    expect((await order(resting.id)).status).toBe("cancelled");
  });

  it("ends an order LongPort refuses as rejected with its code, and still sends the next", async () => {
    suite.fake.faults.refuseNextSubmit(602012, "insufficient buying power");
    const refused = await place({ side: "buy", quantity: "100", order_type: "limit", price: "185" });
    const next = await place({ side: "buy", quantity: "5", order_type: "limit", price: "185" });
    await minute(worker, 190);
    // The earlier tests used the account's 30 trade calls of the last 30 s: the steps send when the window allows.
    await suite.settle(worker, async () => (await order(refused.id)).status === "rejected" && atLongport(next.id) !== undefined);
    expect(await order(refused.id)).toMatchObject({
      status: "rejected",
      denials: [{ reason: "VENUE_REJECTED", values: { venue_code: 602012 } }],
    });
    expect((await order(refused.id)).denials[0].message).toContain("insufficient buying power");
    expect(atLongport(next.id)).toBeDefined();
    await h.api.json("POST", `/api/v1/trading/orders/${next.id}/cancel`, 200, { token: h.token });
    await minute(worker, 190);
    await suite.settle(worker, async () => (await order(next.id)).status === "cancelled");
  }, 90_000);

  it("reconciles when a worker takes the session up: a fill LongPort made while none ran is booked once, an order placed by hand is a VENUE_MISMATCH alert", async () => {
    const resting = await place({ side: "buy", quantity: "10", order_type: "limit", price: "189" });
    await minute(worker, 190);
    const sent = atLongport(resting.id)!;
    // The worker dies with the order resting; LongPort fills it, and someone places an order in the account by hand.
    await worker.stop();
    suite.fake.account.fill(sent.orderId, { quantity: 10, price: 189 });
    const foreign = suite.fake.account.placeExternal({ symbol: "AAPL.US", side: "Buy", orderType: "LO", quantity: 7, price: 150 });
    worker = await h.newWorker();
    await minute(worker, 190);
    await minute(worker, 190);
    expect(await order(resting.id)).toMatchObject({ status: "filled", filled_quantity: "10" });
    const logs = await h.logs(sessionId);
    expect(logs.filter((e) => e.type === "order_filled" && e.data.order_id === resting.id)).toHaveLength(1);
    const alerts = logs.filter((e) => e.type === "alert" && e.data.reason === "VENUE_MISMATCH");
    expect(alerts).toHaveLength(1);
    expect(alerts[0].data).toMatchObject({
      level: "critical",
      values: { foreign_orders: [expect.objectContaining({ order_id: foreign.orderId, quantity: "7" })] },
    });
    expect(alerts[0].data.message).toContain(foreign.orderId);
    suite.fake.account.cancel(foreign.orderId);
  });

  it("exits by its watched target: a bar reaches it, the stop resting at LongPort is cancelled there first, then a market order goes out", async () => {
    const before = new Set(suite.fake.account.orders.keys());
    await minute(worker, 210); // the bar reaches the 10 % target: the engine fires it and asks LongPort to cancel the stop
    await minute(worker, 210); // the stop's cancel is sent and confirmed
    await minute(worker, 210); // the target goes out as a market order
    const sent = [...suite.fake.account.orders.values()].filter((o) => !before.has(o.orderId) && o.orderType === "MO");
    expect(sent.map((o) => [o.side, o.quantity])).toEqual([["Sell", 60]]);
    expect([...suite.fake.account.orders.values()].filter((o) => o.orderType === "MIT" && o.status === "NewStatus")).toEqual([]);
    suite.fake.account.fill(sent[0]!.orderId, { quantity: 60, price: 210 });
    await pause(50);
    await minute(worker, 210);
    const closed = (await h.logs(sessionId)).filter((e) => e.type === "trade_closed");
    expect(closed.map((e) => e.data.exit_reason)).toEqual(["take_profit"]);
    expect(suite.fake.account.positions.get("AAPL.US")?.quantity ?? 0).toBe(0);
  });

  it("feeds the close's 1-minute bar and the daily bar before the day ends, and its books equal the account's to the cent", async () => {
    const daysBefore = JSON.stringify((await h.api.services.trading.sessions.runs.get(sessionId))!.snapshot!.channels.days);
    while (h.clock < Date.parse("2024-03-15T20:00:00Z")) await minute(worker, 190);
    const run = (await h.api.services.trading.sessions.runs.get(sessionId))!;
    // The bar of 15:59 New York closes at 16:00 (20:00Z), and so does the day's: both fed though LongPort confirms neither before Monday's open.
    expect(run.progress?.cursor_ms).toBe(Date.parse("2024-03-15T20:00:00Z"));
    expect(JSON.stringify(run.snapshot!.channels.days)).not.toBe(daysBefore);
    const view = await h.api.json("GET", `/api/v1/trading/sessions/${sessionId}/positions/latest`, 200, { token: h.token });
    const held = view.positions.find((p: { symbol: string }) => p.symbol === "AAPL.US");
    expect(held?.quantity ?? "0").toBe(String(suite.fake.account.positions.get("AAPL.US")?.quantity ?? 0));
    const engineCash = Object.values(run.snapshot!.channels).reduce((sum, channel) => sum.plus(channel.cash.USD ?? 0), new Dec(0));
    expect(engineCash.toFixed(2)).toBe(new Dec(suite.fake.account.cash.get("USD")!).toFixed(2));
  });
});
