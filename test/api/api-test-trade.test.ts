import { randomUUID } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPaperBroker, paperBrokerDeps, type PaperOrderGateway } from "../../packages/adapters/src/provider/paper";
import { SimulatedMarketData } from "../../packages/adapters/src/provider/simulated";
import { DomainError } from "../../packages/core/src/errors";
import { Fees } from "../../packages/core/src/fees/index";
import { Dec } from "../../packages/core/src/money/decimal";
import { ManualClock } from "../../packages/core/src/provider/clock";
import type { SubmitOrderOptions } from "../../packages/core/src/provider/order-gateway";
import type { Candlestick } from "../../packages/core/src/provider/quote-types";
import { createTestApi, type TestApi } from "../support/harness";

/** Tuesday 13 April 2027, 10:35:30 in New York: the US regular session. (After real time, so tokens issued "now" stay valid.) */
const US_OPEN = "2027-04-13T14:35:30Z";
/** The same Tuesday, 10:00:30 in Hong Kong. */
const HK_OPEN = "2027-04-13T02:00:30Z";
const SATURDAY = "2027-04-17T15:00:00Z";
const MINUTE = 60_000;
type DecimalLike = Dec | string | number;

const clock = new ManualClock(US_OPEN);
const fees = Fees.resolve("paper");
// The same deterministic market seen from the end of the week: the expected prices of every minute.
const oracle = new SimulatedMarketData({ clock: new ManualClock("2027-04-17T00:00:00Z") });
let api: TestApi;

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock.now() });
});
beforeEach(() => clock.set(US_OPEN));

const newAccount = (): PaperOrderGateway => api.services.paperBroker(`account-${randomUUID()}`);
const market = () => api.services.marketData();

/** The fee calculator's total for one whole order: the oracle for cash movements. */
function feeOf(market: "US" | "HK", side: "buy" | "sell", quantity: DecimalLike, value: DecimalLike, date = "2027-04-13"): Dec {
  const price = new Dec(value).div(quantity).toFixed();
  return new Dec(Fees.calculate(fees, { quantity: new Dec(quantity).toFixed(), price, side, market }, date).fee_details.total);
}

async function balanceOf(gateway: PaperOrderGateway, currency: "USD" | "HKD") {
  const [balance] = await gateway.accountBalance(currency);
  const info = balance.cash_infos.find((c) => c.currency === currency)!;
  return { cash: balance.total_cash, frozen: info.frozen_cash, buyPower: balance.buy_power, netAssets: balance.net_assets };
}

async function refusalOf(call: Promise<unknown>): Promise<DomainError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

/** Regular-session minutes of a trading day that complete after `after`, from the oracle. */
async function minutesAfter(symbol: string, date: string, after: number): Promise<Candlestick[]> {
  const bars = await oracle.historyCandlesticksByDate(symbol, "1m", "NoAdjust", date, date, "Intraday");
  return bars.filter((bar) => Date.parse(bar.timestamp) + MINUTE > after);
}

/**
 * A buy limit (a minute's low) that the next few minutes stay above and a later minute reaches
 * first, below the current ask: the order rests, then fills in that minute.
 */
async function restingBuyLimit(symbol: string, date: string): Promise<{ limit: Dec; crossing: Candlestick; before: Candlestick }> {
  const bars = await minutesAfter(symbol, date, clock.now());
  const ask = new Dec((await (await market()).depth(symbol)).asks[0].price!);
  for (let j = 5; j < bars.length; j++) {
    const floor = Dec.min(...bars.slice(0, j).map((bar) => new Dec(bar.low)));
    const low = new Dec(bars[j].low);
    if (low.lt(floor) && low.lt(ask)) return { limit: low, crossing: bars[j], before: bars[j - 1] };
  }
  throw new Error(`no later minute of ${symbol} on ${date} trades below the first five`);
}

const endOf = (bar: Candlestick) => Date.parse(bar.timestamp) + MINUTE;
const limitBuy = (symbol: string, quantity: number, price: DecimalLike, extra: Partial<SubmitOrderOptions> = {}): SubmitOrderOptions => ({
  symbol,
  order_type: "LO",
  side: "Buy",
  submitted_quantity: String(quantity),
  time_in_force: "Day",
  submitted_price: new Dec(price).toFixed(),
  ...extra,
});

describe("paper broker: order lifecycle", () => {
  it("rests a limit buy below the market, then fills it in the minute the price crosses, with cash right to the cent", async () => {
    const broker = newAccount();
    const { limit, crossing, before } = await restingBuyLimit("AAPL.US", "2027-04-13");
    const { order_id } = await broker.submitOrder(limitBuy("AAPL.US", 20, limit));

    const hold = limit.times(20).plus(feeOf("US", "buy", 20, limit.times(20)));
    expect((await broker.orderDetail(order_id)).status).toBe("NewStatus");
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: "1000000.00", frozen: hold.toFixed(2), buyPower: new Dec(1_000_000).minus(hold).toFixed(2) });

    clock.set(endOf(before));
    expect((await broker.todayOrders({ order_id }))[0]).toMatchObject({ status: "NewStatus", executed_quantity: "0" });

    clock.set(endOf(crossing) + 15_000);
    const price = Dec.min(limit, new Dec(crossing.open));
    const [filled] = await broker.todayOrders({ order_id });
    expect(filled).toMatchObject({ status: "FilledStatus", executed_quantity: "20", executed_price: price.toFixed(), last_done: price.toFixed() });
    const cash = new Dec(1_000_000).minus(price.times(20)).minus(feeOf("US", "buy", 20, price.times(20)));
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: cash.toFixed(2), frozen: "0.00", buyPower: cash.toFixed(2) });
    expect(await broker.todayExecutions({ order_id })).toEqual([
      {
        order_id,
        trade_id: `${order_id}-1`,
        symbol: "AAPL.US",
        trade_done_at: new Date(endOf(crossing)).toISOString(),
        quantity: "20",
        price: price.toFixed(),
      },
    ]);
    const [position] = (await broker.stockPositions()).channels[0].positions;
    const cost = price.times(20).plus(feeOf("US", "buy", 20, price.times(20)));
    expect(position).toMatchObject({
      symbol: "AAPL.US",
      quantity: "20",
      available_quantity: "20",
      currency: "USD",
      market: "US",
      cost_price: cost.div(20).toDecimalPlaces(4).toFixed(),
    });
  });

  it("takes every displayed level for a market order larger than the book and withdraws the remainder", async () => {
    const broker = newAccount();
    const { asks } = await (await market()).depth("F.US");
    const shown = asks.reduce((sum, level) => sum + level.volume, 0);
    const value = asks.reduce((sum, level) => sum.plus(new Dec(level.price!).times(level.volume)), new Dec(0));
    const { order_id } = await broker.submitOrder({
      symbol: "F.US",
      order_type: "MO",
      side: "Buy",
      submitted_quantity: String(shown + 500),
      time_in_force: "Day",
    });

    const detail = await broker.orderDetail(order_id);
    expect(detail).toMatchObject({ status: "PartialWithdrawal", quantity: String(shown + 500), executed_quantity: String(shown), price: null });
    expect(detail.executed_price).toBe(value.div(shown).toDecimalPlaces(4).toFixed());
    expect(detail.history.filter((step) => step.status === "PartialFilledStatus").map((step) => [step.price, step.quantity])).toEqual(
      asks.map((level) => [new Dec(level.price!).toFixed(), String(level.volume)]),
    );
    expect(detail.msg).toContain(`held only ${shown} of ${shown + 500} shares`);
    const charged = feeOf("US", "buy", shown, value);
    expect(detail.charge_detail.total_amount).toBe(charged.toFixed(2));
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: new Dec(1_000_000).minus(value).minus(charged).toFixed(2), frozen: "0.00" });
    expect((await broker.todayExecutions()).length).toBe(asks.length);
  });

  it("replaces a working order's quantity and price, moving its hold, then cancels it and frees the cash", async () => {
    const broker = newAccount();
    const bid = new Dec((await (await market()).depth("AAPL.US")).bids[0].price!);
    const { order_id } = await broker.submitOrder(limitBuy("AAPL.US", 10, bid.minus(20)));
    const first = bid.minus(20).times(10);
    expect((await balanceOf(broker, "USD")).frozen).toBe(first.plus(feeOf("US", "buy", 10, first)).toFixed(2));

    const price = bid.minus(25);
    await broker.replaceOrder({ order_id, quantity: "30", price: price.toFixed() });
    const replaced = await broker.orderDetail(order_id);
    expect(replaced).toMatchObject({ status: "ReplacedStatus", quantity: "30", price: price.toFixed() });
    expect(replaced.history.map((step) => step.status)).toEqual(["NewStatus", "ReplacedStatus"]);
    expect((await balanceOf(broker, "USD")).frozen).toBe(
      price
        .times(30)
        .plus(feeOf("US", "buy", 30, price.times(30)))
        .toFixed(2),
    );

    await broker.cancelOrder(order_id);
    expect((await broker.orderDetail(order_id)).status).toBe("CanceledStatus");
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: "1000000.00", frozen: "0.00", buyPower: "1000000.00" });
    expect(await refusalOf(broker.cancelOrder(order_id))).toMatchObject({ code: "ORDER_NOT_CANCELLABLE" });
    expect(await refusalOf(broker.replaceOrder({ order_id, quantity: "5" }))).toMatchObject({ code: "ORDER_NOT_REPLACEABLE" });
  });

  it("refuses an order while the market is closed and keeps it as RejectedStatus", async () => {
    const broker = newAccount();
    clock.set(SATURDAY);
    const refused = await refusalOf(broker.submitOrder(limitBuy("AAPL.US", 1, "100")));
    expect(refused).toMatchObject({ status: 400, code: "MARKET_CLOSED" });
    const [kept] = await broker.todayOrders();
    expect(kept).toMatchObject({ order_id: refused.extra.order_id, status: "RejectedStatus" });
    expect(kept.msg).toMatch(/^MARKET_CLOSED: the US market is closed/);
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: "1000000.00", frozen: "0.00" });
  });

  it("takes a limit order in the pre-market only with outside_rth, and no market order there", async () => {
    const broker = newAccount();
    clock.set("2027-04-13T12:00:00Z"); // 08:00 New York
    expect(await refusalOf(broker.submitOrder(limitBuy("AAPL.US", 1, "100")))).toMatchObject({ code: "MARKET_CLOSED" });
    const { order_id } = await broker.submitOrder(limitBuy("AAPL.US", 1, "100", { outside_rth: "ANY_TIME" }));
    expect((await broker.orderDetail(order_id)).status).toBe("NewStatus");
    const market = broker.submitOrder({
      symbol: "AAPL.US",
      order_type: "MO",
      side: "Buy",
      submitted_quantity: "1",
      time_in_force: "Day",
      outside_rth: "ANY_TIME",
    });
    expect(await refusalOf(market)).toMatchObject({ code: "ORDER_TYPE_NOT_ALLOWED_IN_SESSION" });
  });

  it("refuses an HK quantity that is not whole board lots, and a price off the tick grid, storing nothing", async () => {
    const broker = newAccount();
    clock.set(HK_OPEN);
    const bid = new Dec((await (await market()).depth("700.HK")).bids[0].price!);
    expect(await refusalOf(broker.submitOrder(limitBuy("700.HK", 150, bid)))).toMatchObject({ code: "INVALID_LOT_SIZE" });
    const offGrid = await refusalOf(broker.submitOrder(limitBuy("700.HK", 100, bid.plus("0.3"))));
    expect(offGrid).toMatchObject({ code: "INVALID_TICK_SIZE" });
    expect(offGrid.message).toContain("the tick size at this price is 0.5");
    expect(await broker.todayOrders()).toEqual([]);
  });

  it("refuses a buy the free cash cannot pay for, and a sell of shares the account does not hold", async () => {
    const broker = newAccount();
    const ask = new Dec((await (await market()).depth("AAPL.US")).asks[0].price!);
    const refused = await refusalOf(broker.submitOrder(limitBuy("AAPL.US", 10_000, ask)));
    const required = ask.times(10_000).plus(feeOf("US", "buy", 10_000, ask.times(10_000)));
    expect(refused).toMatchObject({ code: "INSUFFICIENT_CASH", extra: { required: required.toFixed(2), available: "1000000.00", currency: "USD" } });
    expect((await broker.orderDetail(refused.extra.order_id as string)).status).toBe("RejectedStatus");
    const sell = await refusalOf(broker.submitOrder({ ...limitBuy("AAPL.US", 5, ask), side: "Sell" }));
    expect(sell).toMatchObject({ code: "INSUFFICIENT_POSITION", extra: { available_quantity: "0" } });
  });

  it("buys HK board lots at the best ask and sells them back, paying HK charges to the cent", async () => {
    const broker = newAccount();
    clock.set(HK_OPEN);
    const depth = await (await market()).depth("700.HK");
    const ask = new Dec(depth.asks[0].price!);
    const buy = await broker.submitOrder(limitBuy("700.HK", 100, ask));
    expect((await broker.orderDetail(buy.order_id)).status).toBe("FilledStatus");
    const buyFees = feeOf("HK", "buy", 100, ask.times(100));
    const afterBuy = new Dec(1_000_000).minus(ask.times(100)).minus(buyFees);
    expect(await balanceOf(broker, "HKD")).toMatchObject({ cash: afterBuy.toFixed(2), frozen: "0.00" });
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: "1000000.00" });

    const bid = new Dec(depth.bids[0].price!);
    const sell = await broker.submitOrder({ ...limitBuy("700.HK", 100, bid), side: "Sell" });
    expect((await broker.orderDetail(sell.order_id)).status).toBe("FilledStatus");
    const sellFees = feeOf("HK", "sell", 100, bid.times(100));
    expect(await balanceOf(broker, "HKD")).toMatchObject({ cash: afterBuy.plus(bid.times(100)).minus(sellFees).toFixed(2), frozen: "0.00" });
    expect((await broker.stockPositions()).channels[0].positions).toEqual([]);
  });

  it("fills an HK odd-lot order against the next minute that reaches its price", async () => {
    const broker = newAccount();
    clock.set(HK_OPEN);
    const [next] = await minutesAfter("700.HK", "2027-04-13", clock.now());
    const limit = new Dec(next.high);
    const { order_id } = await broker.submitOrder({ ...limitBuy("700.HK", 30, limit), order_type: "ODD" });
    expect((await broker.orderDetail(order_id)).status).toBe("NewStatus");
    clock.set(endOf(next));
    const price = Dec.min(limit, new Dec(next.open));
    expect(await broker.orderDetail(order_id)).toMatchObject({ status: "FilledStatus", executed_quantity: "30", executed_price: price.toFixed() });
    const charged = feeOf("HK", "buy", 30, price.times(30));
    expect((await balanceOf(broker, "HKD")).cash).toBe(new Dec(1_000_000).minus(price.times(30)).minus(charged).toFixed(2));
  });

  it("triggers a limit-if-touched buy when the last price falls to its trigger, then fills it", async () => {
    const broker = newAccount();
    const { limit: trigger, crossing, before } = await restingBuyLimit("MSFT.US", "2027-04-13");
    const { order_id } = await broker.submitOrder({ ...limitBuy("MSFT.US", 3, trigger), order_type: "LIT", trigger_price: trigger.toFixed() });
    clock.set(endOf(before));
    expect(await broker.orderDetail(order_id)).toMatchObject({ status: "NewStatus", trigger_status: "ACTIVE", trigger_at: null });
    clock.set(endOf(crossing));
    const price = Dec.min(trigger, new Dec(crossing.open));
    expect(await broker.orderDetail(order_id)).toMatchObject({
      status: "FilledStatus",
      trigger_status: "RELEASED",
      trigger_at: new Date(endOf(crossing)).toISOString(),
      executed_price: price.toFixed(),
    });
  });

  it("expires an unfilled day order at the close and frees its cash", async () => {
    const broker = newAccount();
    const rest = await minutesAfter("AAPL.US", "2027-04-13", clock.now());
    const limit = Dec.min(...rest.map((bar) => new Dec(bar.low)))
      .minus(5)
      .toDecimalPlaces(2);
    const { order_id } = await broker.submitOrder(limitBuy("AAPL.US", 10, limit));
    clock.set("2027-04-13T20:30:00Z");
    expect(await broker.orderDetail(order_id)).toMatchObject({ status: "ExpiredStatus", executed_quantity: "0", updated_at: "2027-04-13T20:00:00.000Z" });
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: "1000000.00", frozen: "0.00" });
  });

  it("estimates the most shares free cash buys, fees included, in whole lots", async () => {
    const broker = newAccount();
    const { max } = { max: await broker.estimateMaxPurchaseQuantity({ symbol: "AAPL.US", order_type: "LO", side: "Buy", price: "200" }) };
    const quantity = Number(max.cash_max_qty);
    const cost = (q: number) => new Dec(200).times(q).plus(feeOf("US", "buy", q, new Dec(200).times(q)));
    expect(cost(quantity).lte(1_000_000)).toBe(true);
    expect(cost(quantity + 1).gt(1_000_000)).toBe(true);
    expect(max.margin_max_qty).toBe(max.cash_max_qty);
    clock.set(HK_OPEN);
    const hk = await broker.estimateMaxPurchaseQuantity({ symbol: "700.HK", order_type: "LO", side: "Buy", price: "780" });
    expect(Number(hk.cash_max_qty) % 100).toBe(0);
    const hkCost = (q: number) => new Dec(780).times(q).plus(feeOf("HK", "buy", q, new Dec(780).times(q)));
    expect(hkCost(Number(hk.cash_max_qty)).lte(1_000_000)).toBe(true);
    expect(hkCost(Number(hk.cash_max_qty) + 100).gt(1_000_000)).toBe(true);
  });

  it("serialises concurrent orders on one account: each holds its own cash, none is lost", async () => {
    const broker = newAccount();
    const bid = new Dec((await (await market()).depth("AAPL.US")).bids[0].price!);
    const prices = [10, 11, 12, 13].map((below) => bid.minus(below));
    const ids = await Promise.all(prices.map((price) => broker.submitOrder(limitBuy("AAPL.US", 10, price))));
    expect(new Set(ids.map((r) => r.order_id)).size).toBe(4);
    expect((await broker.todayOrders()).map((order) => order.status)).toEqual(["NewStatus", "NewStatus", "NewStatus", "NewStatus"]);
    const held = prices.reduce((sum, price) => sum.plus(price.times(10)).plus(feeOf("US", "buy", 10, price.times(10))), new Dec(0));
    expect(await balanceOf(broker, "USD")).toMatchObject({ cash: "1000000.00", frozen: held.toFixed(2) });
  });

  it("keeps orders, fills and cash in the table: a new gateway on the same table sees the same account", async () => {
    const accountId = `account-${randomUUID()}`;
    const broker = api.services.paperBroker(accountId);
    const ask = new Dec((await (await market()).depth("AAPL.US")).asks[0].price!);
    await broker.submitOrder(limitBuy("AAPL.US", 5, ask));
    clock.advance(1000);
    const bid = new Dec((await (await market()).depth("AAPL.US")).bids[0].price!);
    await broker.submitOrder(limitBuy("AAPL.US", 7, bid.minus(10)));

    const restarted = createPaperBroker(paperBrokerDeps(api.services.db, { clock, marketData: () => api.services.marketData() }))(accountId);
    expect(await restarted.todayOrders()).toEqual(await broker.todayOrders());
    expect(await restarted.accountBalance()).toEqual(await broker.accountBalance());
    expect(await restarted.stockPositions()).toEqual(await broker.stockPositions());
    expect((await restarted.todayOrders()).map((order) => order.status)).toEqual(["FilledStatus", "NewStatus"]);
  });
});

describe("trade pass-through endpoints", () => {
  let token: string;
  let user: { username: string; password: string };
  const BASE = "/api/v1/api-test/trade";
  const post = (path: string, body?: unknown, status = 200) => api.json("POST", `${BASE}/${path}`, status, { token, body });
  const get = (path: string, status = 200) => api.json("GET", `${BASE}/${path}`, status, { token });
  const locs = (response: { detail: { loc: (string | number)[] }[] }) => response.detail.map((issue) => issue.loc.join(".")).sort();

  beforeAll(async () => {
    user = await api.createUser();
  });
  // Tokens expire by the service clock, which the tests move: each test logs in at its own time.
  beforeEach(async () => {
    token = await api.login(user.username, user.password);
  });

  it("requires a token", async () => {
    const response = await api.request("POST", `${BASE}/account-balance`, { body: {} });
    expect(response.status).toBe(401);
  });

  it("lists the order types of each market, and none for CN", async () => {
    const us = await get("supported-order-types/US");
    expect(us).toMatchObject({ success: true, error: null, data: { market: "US" } });
    expect(us.data.order_types.map((t: { order_type: string }) => t.order_type)).toEqual(["LO", "MO", "LIT", "MIT", "TSLPAMT", "TSLPPCT"]);
    const hk = await get("supported-order-types/hk");
    expect(hk.data.order_types).toHaveLength(11);
    expect(hk.data.order_types.find((t: { order_type: string }) => t.order_type === "SLO")).toMatchObject({ replaceable: false, replaceable_fields: [] });
    expect((await get("supported-order-types/CN")).data).toEqual({ market: "CN", order_types: [] });
    expect(locs(await get("supported-order-types/XX", 422))).toEqual(["path.market"]);
  });

  it("answers the fields an order type needs, and 422 for an unknown type", async () => {
    const lit = await get("order-type-fields/LIT");
    expect(lit.data).toMatchObject({
      order_type: "LIT",
      markets: ["HK", "US"],
      required_fields: ["symbol", "order_type", "side", "submitted_quantity", "time_in_force", "submitted_price", "trigger_price"],
      conditional_fields: [{ field: "expire_date", required_when: "time_in_force=GTD" }],
      replaceable_fields: ["price", "trigger_price", "remark"],
    });
    expect(locs(await get("order-type-fields/TSMAMT", 422))).toEqual(["path.order_type"]);
  });

  it("shows a submitted order in today-orders, fills it when the price crosses, and changes account-balance", async () => {
    const { limit, crossing } = await restingBuyLimit("NVDA.US", "2027-04-13");
    const submitted = await post("submit-order", {
      symbol: "nvda.us",
      order_type: "LO",
      side: "buy",
      submitted_quantity: 12,
      time_in_force: "Day",
      submitted_price: limit.toNumber(),
      remark: "done-when",
    });
    expect(submitted).toMatchObject({ success: true, error: null, message: `Order ${submitted.data.order_id} submitted` });
    const { order_id } = submitted.data;

    const today = await post("today-orders", { symbol: "NVDA.US" });
    expect(today.data.total).toBe(1);
    expect(today.data.orders[0]).toMatchObject({ order_id, status: "NewStatus", side: "Buy", quantity: "12", price: limit.toFixed(), remark: "done-when" });
    const hold = limit.times(12).plus(feeOf("US", "buy", 12, limit.times(12)));
    const before = (await post("account-balance", { currency: "USD" })).data.balances[0];
    expect(before).toMatchObject({ total_cash: "1000000.00", buy_power: new Dec(1_000_000).minus(hold).toFixed(2) });

    clock.set(endOf(crossing));
    const price = Dec.min(limit, new Dec(crossing.open));
    expect((await post("today-orders")).data.orders[0]).toMatchObject({ order_id, status: "FilledStatus", executed_price: price.toFixed() });
    const cash = new Dec(1_000_000).minus(price.times(12)).minus(feeOf("US", "buy", 12, price.times(12)));
    const after = (await post("account-balance")).data.balances;
    expect(after.map((b: { currency: string }) => b.currency)).toEqual(["USD", "HKD"]);
    expect(after[0]).toMatchObject({
      total_cash: cash.toFixed(2),
      buy_power: cash.toFixed(2),
      frozen_transaction_fees: [{ currency: "USD", frozen_transaction_fee: "0.00" }],
    });
    expect(after[1]).toMatchObject({ total_cash: "1000000.00", net_assets: "1000000.00" });

    const executions = await post("today-executions", { order_id });
    expect(executions).toMatchObject({ success: true, data: { total: 1, executions: [{ order_id, quantity: "12", price: price.toFixed() }] } });
    const detail = await post("order-detail", { order_id });
    expect(detail.data).toMatchObject({
      order_id,
      status: "FilledStatus",
      charge_detail: { currency: "USD", total_amount: feeOf("US", "buy", 12, price.times(12)).toFixed(2) },
    });
    expect(detail.data.history.map((step: { status: string }) => step.status)).toEqual(["NewStatus", "FilledStatus"]);
    const history = await post("history-executions", { symbol: "NVDA.US", start_at: "2027-04-13", end_at: "2027-04-13" });
    expect(history.data.executions.map((e: { order_id: string }) => e.order_id)).toEqual([order_id]);
    expect(
      (await post("history-orders", { start_at: "2027-04-13T00:00:00Z", status: "FilledStatus,NewStatus" })).data.orders.map(
        (o: { order_id: string }) => o.order_id,
      ),
    ).toEqual([order_id]);
    expect((await post("history-orders", { start_at: "2027-04-14", end_at: "2027-04-15" })).data.total).toBe(0);
  });

  it("answers 422 listing every problem of a submit-order body", async () => {
    const missing = await post("submit-order", { side: "hold", submitted_quantity: "-3", order_type: "XYZ" }, 422);
    expect(locs(missing)).toEqual(["body.order_type", "body.side", "body.submitted_quantity", "body.symbol", "body.time_in_force"]);
    const rules = await post("submit-order", { symbol: "AAPL.US", order_type: "ELO", side: "Buy", submitted_quantity: 1, time_in_force: "GTD" }, 422);
    expect(locs(rules)).toEqual(["body.expire_date", "body.order_type", "body.submitted_price"]);
    expect(rules.detail.find((issue: { loc: string[] }) => issue.loc[1] === "order_type").msg).toMatch(/^ORDER_TYPE_NOT_SUPPORTED/);
    expect(locs(await post("submit-order", { symbol: "AAPL", order_type: "MO", side: "Buy", submitted_quantity: 1, time_in_force: "Day" }, 422))).toEqual([
      "body.symbol",
    ]);
    expect(locs(await post("submit-order", "not json", 422))).toEqual(["body"]);
  });

  it("answers broker refusals as success false with the code, never as an HTTP error", async () => {
    const lot = await post("submit-order", {
      symbol: "700.HK",
      order_type: "LO",
      side: "Buy",
      submitted_quantity: 150,
      time_in_force: "Day",
      submitted_price: 780,
    });
    expect(lot).toMatchObject({ success: false, data: null, error: { code: "INVALID_LOT_SIZE", status: 400 } });
    clock.set(SATURDAY);
    token = await api.login(user.username, user.password);
    const closed = await post("submit-order", {
      symbol: "AAPL.US",
      order_type: "LO",
      side: "Buy",
      submitted_quantity: 1,
      time_in_force: "Day",
      submitted_price: "100",
    });
    expect(closed).toMatchObject({ success: false, data: null, error: { code: "MARKET_CLOSED" } });
    expect(closed.error.order_id).toMatch(/^\d{19}$/);
    const unknown = await post("submit-order", { symbol: "ZZZZ.US", order_type: "MO", side: "Buy", submitted_quantity: 1, time_in_force: "Day" });
    expect(unknown.error).toMatchObject({ code: "SYMBOL_NOT_FOUND", status: 404 });
    expect((await post("order-detail", { order_id: "123" })).error).toMatchObject({ code: "ORDER_NOT_FOUND", status: 404 });
    expect((await post("cancel-order", { order_id: "123" })).error).toMatchObject({ code: "ORDER_NOT_FOUND" });
    expect((await post("replace-order", { order_id: "123", quantity: 1 })).error).toMatchObject({ code: "ORDER_NOT_FOUND" });
  });

  it("replaces and cancels a working order, refusing to replace an SLO", async () => {
    clock.set(HK_OPEN);
    const bid = new Dec((await (await market()).depth("700.HK")).bids[0].price!);
    const body = { symbol: "700.HK", order_type: "LO", side: "Buy", submitted_quantity: 100, time_in_force: "GTC", submitted_price: bid.minus(50).toFixed() };
    const { order_id } = (await post("submit-order", body)).data;
    const replaced = await post("replace-order", { order_id, quantity: 200, price: bid.minus(60).toFixed() });
    expect(replaced).toMatchObject({ success: true, data: { order_id }, message: `Order ${order_id} replaced` });
    expect((await post("order-detail", { order_id })).data).toMatchObject({
      status: "ReplacedStatus",
      quantity: "200",
      price: bid.minus(60).toFixed(),
      tag: "GTC",
    });
    const badField = await post("replace-order", { order_id, quantity: 200, trigger_price: 700 });
    expect(badField.error).toMatchObject({ code: "FIELD_NOT_REPLACEABLE" });
    expect(locs(await post("replace-order", { order_id, quantity: "lots" }, 422))).toEqual(["body.quantity"]);
    expect(await post("cancel-order", { order_id })).toMatchObject({ success: true, data: { order_id } });
    expect((await post("cancel-order", { order_id })).error).toMatchObject({ code: "ORDER_NOT_CANCELLABLE" });

    const ask = new Dec((await (await market()).depth("700.HK")).asks[0].price!);
    const slo = await post("submit-order", { ...body, order_type: "SLO", submitted_price: ask.minus(100).toFixed() });
    expect((await post("order-detail", { order_id: slo.data.order_id })).data.status).toBe("CanceledStatus");
    expect((await post("replace-order", { order_id: slo.data.order_id, quantity: 100 })).error).toMatchObject({ code: "ORDER_NOT_REPLACEABLE" });
  });

  it("estimates maximum quantities for buys and sells, and validates the body", async () => {
    const buy = await post("estimate-max-purchase", { symbol: "AAPL.US", order_type: "LO", side: "Buy", price: 250 });
    expect(buy).toMatchObject({ success: true, error: null });
    expect(Number(buy.data.cash_max_qty)).toBeGreaterThan(3000);
    expect(buy.data.margin_max_qty).toBe(buy.data.cash_max_qty);
    expect((await post("estimate-max-purchase", { symbol: "TSLA.US", order_type: "LO", side: "Sell" })).data).toEqual({
      cash_max_qty: "0",
      margin_max_qty: "0",
    });
    expect((await post("estimate-max-purchase", { symbol: "AAPL.US", order_type: "ELO", side: "Buy" })).error).toMatchObject({
      code: "ORDER_TYPE_NOT_SUPPORTED",
    });
    expect(locs(await post("estimate-max-purchase", { symbol: "AAPL.US", side: "Short", fractional_shares: "yes" }, 422))).toEqual([
      "body.fractional_shares",
      "body.order_type",
      "body.side",
    ]);
  });

  it("answers 422 for the invalid bodies of the other endpoints, and takes the listings without a body", async () => {
    expect((await api.json("POST", `${BASE}/today-executions`, 200, { token })).success).toBe(true);
    expect((await api.json("POST", `${BASE}/history-orders`, 200, { token })).success).toBe(true);
    expect(locs(await post("cancel-order", {}, 422))).toEqual(["body.order_id"]);
    expect(locs(await post("order-detail", { order_id: 42 }, 422))).toEqual(["body.order_id"]);
    expect(locs(await post("today-executions", { order_id: 42, symbol: "" }, 422))).toEqual(["body.order_id", "body.symbol"]);
    expect(locs(await post("history-orders", { end_at: "soon" }, 422))).toEqual(["body.end_at"]);
    expect(locs(await post("today-orders", { status: "Bogus", side: "Up", market: "XX" }, 422))).toEqual(["body.market", "body.side", "body.status.0"]);
    expect(locs(await post("history-executions", { start_at: "yesterday" }, 422))).toEqual(["body.start_at"]);
    expect(locs(await post("account-balance", { currency: "dollars" }, 422))).toEqual(["body.currency"]);
    expect((await post("account-balance", { currency: "EUR" })).error).toMatchObject({ code: "CURRENCY_NOT_SUPPORTED" });
    expect((await post("history-orders", { start_at: "2027-04-14", end_at: "2027-04-13" })).error).toMatchObject({ code: "INVALID_DATE_RANGE" });
  });
});
