import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longportLimiters } from "../../packages/adapters/src/provider/longport/connection";
import { LongportOrderGateway } from "../../packages/adapters/src/provider/longport/longport-order-gateway";
import { PacingQueue } from "../../packages/adapters/src/provider/rate-limit";
import type { Order, OrderChangedEvent, SubmitOrderOptions } from "../../packages/core/src/provider/order-gateway";
import { type FakeLongport, LongportErrors, startFakeLongport } from "../support/fake-longport/index";
import { failureOf, type PortFailure, settingsFor, sleep, until } from "./adapter-harness";

/**
 * The `OrderGateway` port's contract, through the project's LongportOrderGateway and the real
 * longport 3.0.18 SDK against the fake LongPort: every method answers the port's plain JSON
 * (decimal strings, ISO instants, LongPort's wire strings), order changes are pushed, each fault
 * is the DomainError the port documents, and a burst of trade calls is paced under LongPort's
 * limit. Each describe has a fake of its own, which enforces LongPort's trade-call limit (30 in
 * 30 s) unless it says otherwise; the gateways pace by the service's own queue.
 */

const DAY1 = "2024-01-02T15:00:00Z"; // Tuesday 10:00 New York

const buyAapl: SubmitOrderOptions = {
  symbol: "AAPL.US",
  order_type: "LO",
  side: "Buy",
  submitted_quantity: "100",
  submitted_price: "189.5",
  time_in_force: "Day",
};

/** A day limit order to buy 100 AAPL.US at 189.5, submitted at DAY1 and not filled, as the port lists it; `fields` differ. */
const listed = (fields: Partial<Order>): Order => ({
  order_id: "",
  status: "NewStatus",
  stock_name: "Apple Inc.",
  quantity: "100",
  executed_quantity: "0",
  price: "189.5",
  executed_price: null,
  submitted_at: "2024-01-02T15:00:00.000Z",
  side: "Buy",
  symbol: "AAPL.US",
  order_type: "LO",
  last_done: null,
  trigger_price: null,
  msg: "",
  tag: "Normal",
  time_in_force: "Day",
  expire_date: null,
  updated_at: "2024-01-02T15:00:00.000Z",
  trigger_at: null,
  trailing_amount: null,
  trailing_percent: null,
  limit_offset: null,
  trigger_status: "NOT_USED",
  currency: "USD",
  outside_rth: null,
  remark: "",
  ...fields,
});

describe("OrderGateway through LongPort: every method's plain JSON and the order-changed pushes", () => {
  let fake: FakeLongport;
  let gateway: LongportOrderGateway;
  const changes: OrderChangedEvent[] = [];
  const changesOf = (orderId: string, count: number) =>
    until(() => {
      const mine = changes.filter((change) => change.order_id === orderId);
      return mine.length >= count && mine;
    });
  let bought = "";
  let sold = "";

  beforeAll(async () => {
    fake = await startFakeLongport({ start: DAY1, positions: [{ symbol: "700.HK", quantity: 400, cost: 295.5 }] });
    gateway = new LongportOrderGateway({ settings: settingsFor(fake), timeoutMs: 5_000, limiter: longportLimiters().trade });
    gateway.setOnOrderChanged((change) => changes.push(change));
  });
  afterAll(() => fake.close());

  it("an order submitted, listed, replaced and filled in two parts: its pushes, executions and detail", async () => {
    ({ order_id: bought } = await gateway.submitOrder({ ...buyAapl, symbol: "aapl.us", outside_rth: "ANY_TIME", remark: "s-1/o-1" }));
    expect(bought).toMatch(/^\d{18}$/);
    expect(fake.account.orders.get(bought)).toMatchObject({
      symbol: "AAPL.US",
      side: "Buy",
      orderType: "LO",
      quantity: 100,
      price: 189.5,
      timeInForce: "Day",
      outsideRth: "ANY_TIME",
      remark: "s-1/o-1",
    });
    expect(await gateway.todayOrders({ symbol: "aapl.us" })).toEqual([listed({ order_id: bought, outside_rth: "ANY_TIME", remark: "s-1/o-1" })]);

    expect(await gateway.replaceOrder({ order_id: bought, quantity: "120", price: "189.6", remark: "s-1/o-1 r" })).toBeUndefined();
    expect(fake.account.orders.get(bought)).toMatchObject({ quantity: 120, price: 189.6, remark: "s-1/o-1 r", status: "ReplacedStatus" });
    fake.account.fill(bought, { quantity: 40, price: 189.4 });
    fake.clock.advance(60_000);
    fake.account.fill(bought, { price: 189.6 });

    expect(await changesOf(bought, 4)).toEqual([
      { order_id: bought, status: "NewStatus", executed_quantity: "0", remark: "s-1/o-1" },
      { order_id: bought, status: "ReplacedStatus", executed_quantity: "0", remark: "s-1/o-1 r" },
      { order_id: bought, status: "PartialFilledStatus", executed_quantity: "40", remark: "s-1/o-1 r" },
      { order_id: bought, status: "FilledStatus", executed_quantity: "120", remark: "s-1/o-1 r" },
    ]);
    const tradeId = expect.stringMatching(new RegExp(`^${bought}-\\d+$`));
    const executions = [
      { order_id: bought, trade_id: tradeId, symbol: "AAPL.US", trade_done_at: "2024-01-02T15:00:00.000Z", quantity: "40", price: "189.4" },
      { order_id: bought, trade_id: tradeId, symbol: "AAPL.US", trade_done_at: "2024-01-02T15:01:00.000Z", quantity: "80", price: "189.6" },
    ];
    expect(await gateway.todayExecutions({ order_id: bought })).toEqual(executions);

    const step = (status: string, price: string, quantity: string, time: string) => ({ price, quantity, status, msg: "", time });
    expect(await gateway.orderDetail(bought)).toEqual({
      ...listed({
        order_id: bought,
        status: "FilledStatus",
        quantity: "120",
        executed_quantity: "120",
        price: "189.6",
        executed_price: "189.5333",
        last_done: "189.6",
        updated_at: "2024-01-02T15:01:00.000Z",
        outside_rth: "ANY_TIME",
        remark: "s-1/o-1 r",
      }),
      free_status: "None",
      free_amount: null,
      free_currency: null,
      deductions_status: "NONE",
      deductions_amount: null,
      deductions_currency: null,
      platform_deducted_status: "NONE",
      platform_deducted_amount: null,
      platform_deducted_currency: null,
      // Newest first, as LongPort lists them: a fill's step has its price and quantity, the others the order's.
      history: [
        step("FilledStatus", "189.6", "80", "2024-01-02T15:01:00.000Z"),
        step("PartialFilledStatus", "189.4", "40", "2024-01-02T15:00:00.000Z"),
        step("ReplacedStatus", "189.6", "120", "2024-01-02T15:00:00.000Z"),
        step("NewStatus", "189.5", "100", "2024-01-02T15:00:00.000Z"),
      ],
      charge_detail: {
        total_amount: "0",
        currency: "USD",
        items: [
          { code: "BROKER_FEES", name: "Broker Fees", fees: [] },
          { code: "THIRD_FEES", name: "Third-party Fees", fees: [] },
        ],
      },
    });
  });

  it("an order good till a date, cancelled; today's orders filtered by market, status, side and order id", async () => {
    ({ order_id: sold } = await gateway.submitOrder({
      symbol: "700.HK",
      order_type: "LO",
      side: "Sell",
      submitted_quantity: "200",
      submitted_price: "310",
      time_in_force: "GTD",
      expire_date: "2024-01-10",
    }));
    expect(await gateway.cancelOrder(sold)).toBeUndefined();
    expect((await changesOf(sold, 2)).map((change) => change.status)).toEqual(["NewStatus", "CanceledStatus"]);
    const hk = listed({
      order_id: sold,
      status: "CanceledStatus",
      stock_name: "TENCENT",
      quantity: "200",
      price: "310",
      submitted_at: "2024-01-02T15:01:00.000Z",
      updated_at: "2024-01-02T15:01:00.000Z",
      side: "Sell",
      symbol: "700.HK",
      time_in_force: "GTD",
      expire_date: "2024-01-10",
      currency: "HKD",
    });
    expect(await gateway.todayOrders({ market: "HK" })).toEqual([hk]);
    expect(await gateway.todayOrders({ side: "Sell" })).toEqual([hk]);
    expect((await gateway.todayOrders({ status: ["FilledStatus", "RejectedStatus"] })).map((order) => order.order_id)).toEqual([bought]);
    expect((await gateway.todayOrders({ order_id: bought })).map((order) => [order.order_id, order.status])).toEqual([[bought, "FilledStatus"]]);
  });

  it("the account: balances by currency, positions by channel, the most a cash or margin order can buy or sell", async () => {
    // 100,000 less 40 at 189.4 and 80 at 189.6; net assets add 120 shares at the last price, 190.
    const usd = {
      total_cash: "77256",
      max_finance_amount: "0",
      remaining_finance_amount: "0",
      risk_level: 1,
      margin_call: "0",
      currency: "USD",
      cash_infos: [
        { withdraw_cash: "77256", available_cash: "77256", frozen_cash: "0", settling_cash: "0", currency: "USD" },
        { withdraw_cash: "500000", available_cash: "500000", frozen_cash: "0", settling_cash: "0", currency: "HKD" },
      ],
      net_assets: "100056",
      init_margin: "0",
      maintenance_margin: "0",
      buy_power: "77256",
      frozen_transaction_fees: [],
    };
    expect(await gateway.accountBalance("USD")).toEqual([usd]);
    expect((await gateway.accountBalance()).map((balance) => [balance.currency, balance.total_cash, balance.net_assets])).toEqual([
      ["USD", "77256", "100056"],
      ["HKD", "500000", "620000"],
    ]);

    const tencent = {
      symbol: "700.HK",
      symbol_name: "TENCENT",
      quantity: "400",
      available_quantity: "400",
      currency: "HKD",
      cost_price: "295.5",
      market: "HK",
      init_quantity: "400",
    };
    expect(await gateway.stockPositions()).toEqual({
      channels: [
        {
          account_channel: "lb",
          positions: [
            tencent,
            {
              symbol: "AAPL.US",
              symbol_name: "Apple Inc.",
              quantity: "120",
              available_quantity: "120",
              currency: "USD",
              cost_price: "189.5333",
              market: "US",
              init_quantity: "120",
            },
          ],
        },
      ],
    });
    expect(await gateway.stockPositions(["00700.hk"])).toEqual({ channels: [{ account_channel: "lb", positions: [tencent] }] });

    expect(await gateway.estimateMaxPurchaseQuantity({ symbol: "aapl.us", order_type: "LO", side: "Buy", price: "190" })).toEqual({
      cash_max_qty: "406",
      margin_max_qty: "406",
    });
    expect(await gateway.estimateMaxPurchaseQuantity({ symbol: "700.HK", order_type: "LO", side: "Sell", price: "310" })).toEqual({
      cash_max_qty: "400",
      margin_max_qty: "400",
    });
  });

  it("a trigger order good till cancelled and a market order the venue rejects: trigger price, no limit price, session flags, the rejection's message", async () => {
    const { order_id: touched } = await gateway.submitOrder({
      symbol: "AAPL.US",
      order_type: "LIT",
      side: "Sell",
      submitted_quantity: "5",
      submitted_price: "200",
      trigger_price: "199.5",
      time_in_force: "GTC",
      outside_rth: "RTH_ONLY",
    });
    const { order_id: market } = await gateway.submitOrder({
      symbol: "AAPL.US",
      order_type: "MO",
      side: "Buy",
      submitted_quantity: "5",
      time_in_force: "Day",
      outside_rth: "OVERNIGHT",
    });
    fake.account.reject(market, "not in the overnight session");
    expect((await changesOf(market, 2)).at(-1)).toEqual({ order_id: market, status: "RejectedStatus", executed_quantity: "0", remark: "" });
    const stamps = { submitted_at: "2024-01-02T15:01:00.000Z", updated_at: "2024-01-02T15:01:00.000Z", quantity: "5" };
    expect(await gateway.todayOrders({ symbol: "AAPL.US", status: ["NewStatus", "RejectedStatus"] })).toEqual([
      listed({
        order_id: market,
        status: "RejectedStatus",
        price: null,
        order_type: "MO",
        msg: "not in the overnight session",
        outside_rth: "OVERNIGHT",
        ...stamps,
      }),
      listed({
        order_id: touched,
        side: "Sell",
        price: "200",
        order_type: "LIT",
        trigger_price: "199.5",
        time_in_force: "GTC",
        outside_rth: "RTH_ONLY",
        ...stamps,
      }),
    ]);
    await gateway.cancelOrder(touched);
    expect((await changesOf(touched, 2)).map((change) => change.status)).toEqual(["NewStatus", "CanceledStatus"]);
  });

  it("the next day: yesterday's orders and executions in the history by range, today's lists empty; a removed handler gets no pushes", async () => {
    fake.clock.set("2024-01-03T15:00:00Z");
    expect(await gateway.todayOrders()).toEqual([]);
    expect(await gateway.todayExecutions()).toEqual([]);
    const history = await gateway.historyOrders({ symbol: "AAPL.US", status: ["FilledStatus"], start_at: "2024-01-02", end_at: "2024-01-03T00:00:00Z" });
    expect(history.map((order) => [order.order_id, order.status, order.executed_quantity, order.executed_price, order.updated_at])).toEqual([
      [bought, "FilledStatus", "120", "189.5333", "2024-01-02T15:01:00.000Z"],
    ]);
    expect(await gateway.historyOrders({ start_at: "2024-01-03" })).toEqual([]);
    expect((await gateway.historyExecutions({ symbol: "AAPL.US", start_at: "2024-01-02T00:00:00Z" })).map((execution) => execution.quantity)).toEqual([
      "40",
      "80",
    ]);

    gateway.setOnOrderChanged(null);
    const unheard = fake.account.placeExternal({ symbol: "AAPL.US", side: "Buy", quantity: 1, price: 190 });
    await sleep(300);
    gateway.setOnOrderChanged((change) => changes.push(change));
    const heard = fake.account.placeExternal({ symbol: "AAPL.US", side: "Sell", quantity: 1, price: 191, remark: "from the app" });
    expect(await changesOf(heard.orderId, 1)).toEqual([{ order_id: heard.orderId, status: "NewStatus", executed_quantity: "0", remark: "from the app" }]);
    expect(changes.filter((change) => change.order_id === unheard.orderId)).toEqual([]);
  });
});

describe("OrderGateway through LongPort: faults as the port reports them", () => {
  let fake: FakeLongport;
  let gateway: LongportOrderGateway;
  const changes: OrderChangedEvent[] = [];

  beforeAll(async () => {
    fake = await startFakeLongport({ start: DAY1 });
    gateway = new LongportOrderGateway({ settings: settingsFor(fake), timeoutMs: 1_500, limiter: longportLimiters().trade });
    gateway.setOnOrderChanged((change) => changes.push(change));
  });
  afterAll(() => fake.close());

  const longport = (fields: Record<string, unknown> = {}) => ({ provider: "longport", ...fields });

  it("a submit LongPort refuses: 422 PROVIDER_REFUSED with its code and message; the next submit goes through", async () => {
    fake.faults.refuseNextSubmit(602012, "insufficient buying power");
    expect(await failureOf(gateway.submitOrder(buyAapl))).toEqual({
      status: 422,
      code: "PROVIDER_REFUSED",
      extra: longport({ provider_code: 602012, provider_message: "insufficient buying power" }),
    });
    expect((await gateway.submitOrder(buyAapl)).order_id).toMatch(/^\d{18}$/);
  });

  it("a replace and a cancel of an order that has ended: 422 PROVIDER_REFUSED with LongPort's code", async () => {
    const { order_id } = await gateway.submitOrder(buyAapl);
    fake.account.fill(order_id);
    const refused = (message: string): PortFailure => ({
      status: 422,
      code: "PROVIDER_REFUSED",
      extra: longport({ provider_code: 602001, provider_message: `order ${order_id} is FilledStatus and cannot be ${message}` }),
    });
    expect(await failureOf(gateway.replaceOrder({ order_id, quantity: "150", price: "189.7" }))).toEqual(refused("replaced"));
    expect(await failureOf(gateway.cancelOrder(order_id))).toEqual(refused("canceled"));
  });

  it("LongPort's error on a query is 502 PROVIDER_ERROR; its internal error on a submit too (whether the order was taken is unknown), not a refusal", async () => {
    expect(await failureOf(gateway.orderDetail("1"))).toEqual({ status: 502, code: "PROVIDER_ERROR", extra: longport({ provider_code: 602001 }) });
    fake.faults.failNext({ method: "POST", path: "/v1/trade/order" }, LongportErrors.internal);
    expect(await failureOf(gateway.submitOrder(buyAapl))).toEqual({ status: 502, code: "PROVIDER_ERROR", extra: longport({ provider_code: 500000 }) });
  });

  it("rate limits 429001 and 429002: 429 PROVIDER_RATE_LIMITED with retry_after, on a submit as on a query", async () => {
    fake.faults.rateLimitNext(1, LongportErrors.ipRateLimit, { path: "/v1/trade/order" });
    expect(await failureOf(gateway.submitOrder(buyAapl))).toEqual({
      status: 429,
      code: "PROVIDER_RATE_LIMITED",
      extra: longport({ provider_code: 429001, retry_after: 2 }),
    });
    fake.faults.rateLimitNext();
    expect(await failureOf(gateway.todayOrders())).toEqual({
      status: 429,
      code: "PROVIDER_RATE_LIMITED",
      extra: longport({ provider_code: 429002, retry_after: 2 }),
    });
  });

  it("a duplicate request (403202): 409 PROVIDER_DUPLICATE_REQUEST", async () => {
    fake.faults.failNext({ method: "POST", path: "/v1/trade/order" }, LongportErrors.duplicateRequest);
    expect(await failureOf(gateway.submitOrder(buyAapl))).toEqual({
      status: 409,
      code: "PROVIDER_DUPLICATE_REQUEST",
      extra: longport({ provider_code: 403202 }),
    });
  });

  it("no answer within the adapter's timeout: 504 PROVIDER_TIMEOUT; a connection cut, or a 503 without LongPort's body: 503 PROVIDER_UNAVAILABLE", async () => {
    fake.faults.delayNext({ path: "/v1/trade/order/today" }, 2_500);
    expect(await failureOf(gateway.todayOrders())).toEqual({ status: 504, code: "PROVIDER_TIMEOUT", extra: longport() });
    fake.faults.dropNext({ path: "/v1/trade/order/today" });
    expect(await failureOf(gateway.todayOrders())).toEqual({ status: 503, code: "PROVIDER_UNAVAILABLE", extra: longport({ retry_after: 5 }) });
    fake.faults.bareStatus({ path: "/v1/asset/stock" }, 503, 1, "Service Unavailable");
    expect(await failureOf(gateway.stockPositions())).toEqual({ status: 503, code: "PROVIDER_UNAVAILABLE", extra: longport({ retry_after: 5 }) });
  });

  it("a dropped trade socket: calls answer meanwhile, and order changes are pushed again once the SDK has reconnected and resubscribed", async () => {
    const dropped = Date.now();
    expect(fake.dropSockets("trade")).toBe(1);
    expect((await gateway.todayOrders({ status: ["FilledStatus"] })).map((order) => order.status)).toEqual(["FilledStatus"]);
    // The private topic's subscription (command 16) is what the SDK sends again after reconnecting.
    await until(() => fake.openSockets("trade") === 1 && fake.socketCommands.some((c) => c.at >= dropped && c.gateway === "trade" && c.command === 16));
    const external = fake.account.placeExternal({ symbol: "700.HK", side: "Buy", quantity: 100, price: 300, remark: "after the drop" });
    await until(() => changes.some((change) => change.order_id === external.orderId));
    expect(changes.filter((change) => change.order_id === external.orderId)).toEqual([
      { order_id: external.orderId, status: "NewStatus", executed_quantity: "0", remark: "after the drop" },
    ]);
  });

  it("a bad signature: 502 PROVIDER_AUTH_FAILED with LongPort's code", async () => {
    const forged = new LongportOrderGateway({
      settings: settingsFor(fake, { app_secret: "not-the-secret" }),
      timeoutMs: 1_500,
      limiter: longportLimiters().trade,
    });
    expect(await failureOf(forged.todayOrders())).toEqual({ status: 502, code: "PROVIDER_AUTH_FAILED", extra: longport({ provider_code: 403201 }) });
  });

  it("an expired token (401003): 503 PROVIDER_TOKEN_EXPIRED with retry_after, on a call and on connecting", async () => {
    fake.expireToken();
    const expired = { status: 503, code: "PROVIDER_TOKEN_EXPIRED", extra: longport({ provider_code: 401003, retry_after: 60 }) };
    expect(await failureOf(gateway.submitOrder(buyAapl))).toEqual(expired);
    const fresh = new LongportOrderGateway({ settings: settingsFor(fake), timeoutMs: 1_500, limiter: longportLimiters().trade });
    expect(await failureOf(fresh.accountBalance())).toEqual(expired);
  });
});

describe("OrderGateway through LongPort: the trade-call budget", () => {
  it("a burst beyond LongPort's limit is refused unpaced (429 PROVIDER_RATE_LIMITED, 429002); through the pacing queue every call is answered, spaced within the limit", async () => {
    // LongPort's 30 trade calls in 30 s, scaled to 5 in 1 s so the test takes seconds; the queue's
    // window is 1.1 s, the margin for the calls' latency between its clock and the fake's.
    const fake = await startFakeLongport({ start: DAY1, tradeRateLimit: { max: 5, windowMs: 1_000 } });
    try {
      const calls = (gateway: LongportOrderGateway, count: number) =>
        Array.from({ length: count }, (_, i) =>
          [() => gateway.todayOrders(), () => gateway.todayExecutions(), () => gateway.accountBalance("USD"), () => gateway.stockPositions()][i % 4]!(),
        );

      const unpaced = new LongportOrderGateway({
        settings: settingsFor(fake),
        timeoutMs: 5_000,
        limiter: new PacingQueue({ name: "unpaced", maxCalls: 1_000, perMs: 1_000 }),
      });
      const outcomes = await Promise.allSettled(calls(unpaced, 8));
      const refusals = await Promise.all(
        outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => failureOf(Promise.reject(outcome.reason))),
      );
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(5);
      expect(refusals).toEqual(
        Array(3).fill({ status: 429, code: "PROVIDER_RATE_LIMITED", extra: { provider: "longport", provider_code: 429002, retry_after: 2 } }),
      );

      await sleep(1_000);
      const paced = new LongportOrderGateway({
        settings: settingsFor(fake),
        timeoutMs: 5_000,
        limiter: new PacingQueue({ name: "longport-trade, scaled", maxCalls: 5, perMs: 1_100, minIntervalMs: 20 }),
      });
      const before = fake.tradeCalls().length;
      const answers = await Promise.all(calls(paced, 12));
      expect(answers.filter((answer) => Array.isArray(answer) && answer.length === 0)).toHaveLength(6); // no orders, no executions
      const burst = fake.tradeCalls().slice(before);
      expect(burst.map((call) => [call.status, call.code])).toEqual(Array(12).fill([200, 0]));
      for (let i = 5; i < burst.length; i++) expect(burst[i]!.at - burst[i - 5]!.at).toBeGreaterThanOrEqual(1_000);
    } finally {
      await fake.close();
    }
  });
});
