import { describe, expect, it } from "vitest";
import { Fees } from "../fees/index";
import { Dec } from "../money/decimal";
import { UsTicks } from "../market/tick-size";
import { PaperBook } from "./book";
import type { MinuteBar, PaperOrder } from "./types";

const NOW = Date.parse("2027-04-13T14:35:30Z");
const fees = Fees.resolve("paper");
const options = { fees, now: NOW, tickTable: () => UsTicks };

/** Fees the calculator charges for one whole order, as the oracle for cash movements. */
const feeOf = (side: "buy" | "sell", quantity: number, price: string) =>
  new Dec(Fees.calculate(fees, { quantity, price, side, market: "US" }, "2027-04-13").fee_details.total);

let sequence = 0;
function draft(overrides: Partial<PaperOrder> = {}): PaperOrder {
  sequence += 1;
  return {
    account_id: "account",
    order_id: `${NOW}${String(sequence).padStart(6, "0")}`,
    symbol: "AAPL.US",
    stock_name: "Apple Inc.",
    market: "US",
    currency: "USD",
    lot_size: 1,
    order_type: "LO",
    side: "Buy",
    time_in_force: "Day",
    outside_rth: "RTH_ONLY",
    expire_date: null,
    remark: "",
    msg: "",
    status: "NotReported",
    tag: "Normal",
    quantity: "100",
    executed_quantity: "0",
    executed_amount: "0",
    price: "100",
    submitted_price: "100",
    trigger_price: null,
    limit_offset: null,
    trailing_amount: null,
    trailing_percent: null,
    trigger_status: "NOT_USED",
    trigger_at: null,
    touch: null,
    trailing_reference: null,
    phase: "limit",
    auction_at: null,
    sessions: ["Intraday"],
    trading_date: "2027-04-13",
    expires_at: Date.parse("2027-04-13T20:00:00Z"),
    reserve_price: "100",
    frozen_cash: "0.00",
    frozen_fees: "0.00",
    frozen_quantity: "0",
    fees_charged: "0.00",
    fee_details: null,
    last_done: null,
    submitted_at: new Date(NOW).toISOString(),
    updated_at: new Date(NOW).toISOString(),
    matched_until: NOW,
    fills: 0,
    history: [],
    ...overrides,
  };
}

const openBook = (usd = "1000000") => PaperBook.open("account", { USD: usd, HKD: "1000000" }, options);
const minute = (startIso: string, open: string, high: string, low: string, close: string, volume = 5000): MinuteBar => {
  const start = Date.parse(startIso);
  return { start, end: start + 60_000, open, high, low, close, volume, session: "Intraday" };
};

describe("cash held by working buys", () => {
  it("holds the limit value plus the order's estimated fees, and frees it all on cancel", () => {
    const book = openBook();
    const order = draft();
    book.accept(order);
    expect(feeOf("buy", 100, "100").toFixed(2)).toBe("2.29");
    expect(book.account.cash.USD).toEqual({ cash: "1000000.00", frozen: "10002.29", frozen_fees: "2.29" });
    expect(book.available("USD").toFixed(2)).toBe("989997.71");
    expect(order.status).toBe("NewStatus");
    book.withdraw(order, "", NOW + 1000);
    expect(order.status).toBe("CanceledStatus");
    expect(book.account.cash.USD).toEqual({ cash: "1000000.00", frozen: "0.00", frozen_fees: "0.00" });
    expect(book.account.working).toEqual([]);
  });

  it("charges a fill below the limit at its own price and fees, releases the hold and books the cost with fees", () => {
    const book = openBook();
    const order = draft();
    book.accept(order);
    book.fill(order, new Dec(100), new Dec("99.5"), NOW + 60_000);
    const charged = feeOf("buy", 100, "99.5");
    expect(book.account.cash.USD.cash).toBe(new Dec(1_000_000).minus(9950).minus(charged).toFixed(2));
    expect(book.account.cash.USD.frozen).toBe("0.00");
    expect(book.account.positions["AAPL.US"]).toMatchObject({ quantity: "100", frozen: "0", cost_amount: new Dec(9950).plus(charged).toFixed(2) });
    expect(order).toMatchObject({ status: "FilledStatus", executed_quantity: "100", fees_charged: charged.toFixed(2), last_done: "99.5" });
    expect(book.changes().executions).toMatchObject([{ quantity: "100", price: "99.5", amount: "9950.00", trade_id: `${order.order_id}-1` }]);
  });

  it("keeps holding the remainder of a partly filled buy, so free cash does not move until it fills", () => {
    const book = openBook();
    const order = draft();
    book.accept(order);
    const freeBefore = book.available("USD");
    book.fill(order, new Dec(40), new Dec("100"), NOW + 60_000);
    expect(order.status).toBe("PartialFilledStatus");
    const charged = feeOf("buy", 40, "100");
    expect(book.account.cash.USD.cash).toBe(new Dec(1_000_000).minus(4000).minus(charged).toFixed(2));
    // The hold is the 60 shares left at the limit plus the fees the whole order still owes.
    expect(book.account.cash.USD.frozen).toBe(
      new Dec(6000)
        .plus(feeOf("buy", 100, "100"))
        .minus(charged)
        .toFixed(2),
    );
    expect(book.available("USD").toFixed(2)).toBe(freeBefore.toFixed(2));
    book.withdraw(order, "", NOW + 120_000);
    expect(order.status).toBe("PartialWithdrawal");
    expect(book.account.cash.USD.frozen).toBe("0.00");
  });

  it("fills only what free cash pays for when the fill price is above the reservation", () => {
    const book = openBook("1000");
    const order = draft({ order_type: "MIT", quantity: "10", price: null, reserve_price: "90", phase: "market" });
    book.accept(order);
    expect(book.fill(order, new Dec(10), new Dec("110"), NOW + 60_000).toFixed()).toBe("4");
    expect(book.account.cash.USD.cash).toBe(
      new Dec(1000)
        .minus(440)
        .minus(feeOf("buy", 4, "110"))
        .toFixed(2),
    );
    expect(book.available("USD").gte(0)).toBe(true);
    expect(order).toMatchObject({ status: "PartialFilledStatus", executed_quantity: "4" });
  });
});

describe("sells", () => {
  it("adds the proceeds less the sell's fees and reduces the holding and its cost", () => {
    const book = openBook();
    const buy = draft();
    book.accept(buy);
    book.fill(buy, new Dec(100), new Dec("100"), NOW + 60_000);
    const cashAfterBuy = new Dec(book.account.cash.USD.cash);
    const sell = draft({ side: "Sell", quantity: "60", price: "101", submitted_price: "101", reserve_price: null });
    book.accept(sell);
    expect(book.account.positions["AAPL.US"].frozen).toBe("60");
    expect(book.positionAvailable("AAPL.US").toFixed()).toBe("40");
    book.fill(sell, new Dec(60), new Dec("101"), NOW + 120_000);
    const sellFees = feeOf("sell", 60, "101");
    expect(book.account.cash.USD.cash).toBe(cashAfterBuy.plus(6060).minus(sellFees).toFixed(2));
    // The engine's ledger: the sale releases 60/100 of the cost, exactly, and books the difference as realised P&L.
    const cost = new Dec(10_000).plus(feeOf("buy", 100, "100"));
    const released = cost.times(new Dec(60).div(100));
    const position = book.account.positions["AAPL.US"];
    expect(position).toMatchObject({ quantity: "40", frozen: "0", entry_price: 100 });
    expect(new Dec(position.cost_amount).eq(cost.minus(released))).toBe(true);
    expect(new Dec(position.realized!).eq(new Dec(6060).minus(sellFees).minus(released))).toBe(true);
    expect(new Dec(position.fees!).eq(feeOf("buy", 100, "100").plus(sellFees))).toBe(true);
  });

  it("ends the round trip when the last share is sold and takes up holdings stored before the ledger kept one", () => {
    const book = openBook();
    // A holding as stored before: no realised P&L, fees or entry price.
    book.account.positions["AAPL.US"] = {
      symbol: "AAPL.US",
      symbol_name: "Apple",
      market: "US",
      currency: "USD",
      quantity: "10",
      frozen: "0",
      cost_amount: "1000.50",
    };
    const sell = draft({ side: "Sell", quantity: "10", price: "110", submitted_price: "110", reserve_price: null });
    book.accept(sell);
    book.fill(sell, new Dec(10), new Dec("110"), NOW + 60_000);
    expect(book.account.positions["AAPL.US"]).toBeUndefined();
    expect(book.account.cash.USD.cash).toBe(
      new Dec(1_000_000)
        .plus(1100)
        .minus(feeOf("sell", 10, "110"))
        .toFixed(2),
    );
  });
});

describe("matching working orders minute by minute", () => {
  it("rests a buy below the market and fills it in the first minute that trades down to it", () => {
    const book = openBook();
    const order = draft({ price: "99", submitted_price: "99", reserve_price: "99" });
    book.accept(order);
    book.matchBar(order, minute("2027-04-13T14:36:00Z", "100.2", "100.4", "99.5", "99.8"));
    expect(order.status).toBe("NewStatus");
    book.matchBar(order, minute("2027-04-13T14:37:00Z", "99.8", "99.9", "98.7", "99.1"));
    expect(order).toMatchObject({ status: "FilledStatus", last_done: "99", updated_at: "2027-04-13T14:38:00.000Z" });
  });

  it("caps a fill at the minute's volume and fills the rest in later minutes", () => {
    const book = openBook();
    const order = draft({ quantity: "3000" });
    book.accept(order);
    book.matchBar(order, minute("2027-04-13T14:36:00Z", "99.9", "100", "99.8", "99.9", 1200));
    expect(order).toMatchObject({ status: "PartialFilledStatus", executed_quantity: "1200" });
    book.matchBar(order, minute("2027-04-13T14:37:00Z", "99.9", "100", "99.8", "99.9", 5000));
    expect(order).toMatchObject({ status: "FilledStatus", executed_quantity: "3000", fills: 2 });
  });

  it("triggers a market-if-touched buy when the price falls to the trigger and fills at the trigger", () => {
    const book = openBook();
    const order = draft({
      order_type: "MIT",
      price: null,
      trigger_price: "99",
      touch: "down",
      phase: "trigger",
      trigger_status: "ACTIVE",
      reserve_price: "103.95",
    });
    book.accept(order);
    book.matchBar(order, minute("2027-04-13T14:36:00Z", "100", "100.1", "99.2", "99.5"));
    expect(order.trigger_status).toBe("ACTIVE");
    book.matchBar(order, minute("2027-04-13T14:37:00Z", "99.5", "99.6", "98.8", "99.1"));
    expect(order).toMatchObject({ trigger_status: "RELEASED", trigger_at: "2027-04-13T14:38:00.000Z", status: "FilledStatus", last_done: "99" });
  });

  it("raises a trailing sell's trigger with new highs and sells once the price falls back by the amount", () => {
    const book = openBook();
    const buy = draft({ quantity: "10" });
    book.accept(buy);
    book.fill(buy, new Dec(10), new Dec(100), NOW);
    const order = draft({
      order_type: "TSLPAMT",
      side: "Sell",
      quantity: "10",
      price: null,
      reserve_price: null,
      trailing_amount: "2",
      limit_offset: "0.5",
      trailing_reference: "100",
      trigger_price: "98",
      phase: "trigger",
      trigger_status: "ACTIVE",
    });
    book.accept(order);
    book.matchBar(order, minute("2027-04-13T14:36:00Z", "100", "103", "99.5", "102.5"));
    expect(order).toMatchObject({ trailing_reference: "103", trigger_price: "101", trigger_status: "ACTIVE" });
    book.matchBar(order, minute("2027-04-13T14:37:00Z", "102.5", "102.6", "100.8", "101"));
    expect(order).toMatchObject({ trigger_status: "RELEASED", price: "100.5", status: "FilledStatus", last_done: "101" });
  });

  it("expires a day order at its end, releasing its hold", () => {
    const book = openBook();
    const order = draft({ price: "50", submitted_price: "50", reserve_price: "50" });
    book.accept(order);
    book.matchBar(order, minute("2027-04-14T13:30:00Z", "100", "100", "99", "99.5"));
    expect(order).toMatchObject({ status: "ExpiredStatus", updated_at: "2027-04-13T20:00:00.000Z" });
    expect(book.account.cash.USD.frozen).toBe("0.00");
  });
});
