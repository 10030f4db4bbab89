import { describe, expect, it } from "vitest";
import { Period } from "@tp/core/provider/quote-enums";
import { isoDateOf } from "./codec";
import { codec, dec, E, sdk, withLongportSdk } from "./testing/sdk-fixture";

withLongportSdk();

describe("port arguments become SDK values by enum member name, not by wire number", () => {
  it("maps every canonical period to its Node enum number and back (Day is 14 in Node, 1000 on the wire)", () => {
    expect(codec.period("1d")).toBe(E.Period.Day);
    expect(codec.period("1d")).toBe(14);
    expect(codec.period("1h")).toBe(E.Period.Min_60);
    expect(codec.period("1mo")).toBe(E.Period.Month);
    for (const period of Period.options) expect(codec.periodOf(codec.period(period))).toBe(period);
  });

  it("maps trade sessions, adjust types, sub types, calc indexes, markets and languages", () => {
    expect(codec.tradeSessions("All")).toBe(1); // 100 on the wire
    expect(codec.tradeSessions("Intraday")).toBe(E.TradeSessions.Intraday);
    expect(codec.adjustType("ForwardAdjust")).toBe(E.AdjustType.ForwardAdjust);
    expect(codec.subTypes(["Quote", "Trade"])).toEqual([E.SubType.Quote, E.SubType.Trade]);
    expect(codec.subTypes(["Quote", "Trade"])).toEqual([0, 3]); // 1 and 4 on the wire
    expect(codec.calcIndexes(["LastDone", "PeTtmRatio", "Rho"])).toEqual([E.CalcIndex.LastDone, E.CalcIndex.PeTtmRatio, E.CalcIndex.Rho]);
    expect(codec.market("HK")).toBe(E.Market.HK);
    expect(codec.language("zh-HK")).toBe(E.Language.ZH_HK);
  });

  it("builds Decimals and NaiveDates from decimal strings and ISO dates", () => {
    const price = codec.decimal("612.500");
    expect(price).toBeInstanceOf(sdk.Decimal);
    expect(price.toString()).toBe("612.500");
    const date = codec.naiveDate("2026-03-10");
    expect(date).toBeInstanceOf(sdk.NaiveDate);
    expect([date.year, date.month, date.day]).toEqual([2026, 3, 10]);
    expect(isoDateOf(codec.naiveDate("2026-03-10T09:30:00Z"))).toBe("2026-03-10");
  });

  it("builds SubmitOrderOptions with SDK enums and Decimals and leaves absent options out", () => {
    const options = codec.submitOrder({
      symbol: "700.HK",
      order_type: "LO",
      side: "Buy",
      submitted_quantity: "200",
      time_in_force: "GTD",
      submitted_price: "388.6",
      expire_date: "2026-03-31",
      outside_rth: "ANY_TIME",
      remark: "test",
    });
    expect(Object.keys(options).sort()).toEqual(
      ["expireDate", "orderType", "outsideRth", "remark", "side", "submittedPrice", "submittedQuantity", "symbol", "timeInForce"].sort(),
    );
    expect(options.orderType).toBe(E.OrderType.LO);
    expect(options.side).toBe(E.OrderSide.Buy);
    expect(options.timeInForce).toBe(E.TimeInForceType.GoodTilDate);
    expect(options.outsideRth).toBe(E.OutsideRTH.AnyTime);
    expect(options.submittedQuantity.toString()).toBe("200");
    expect(options.submittedPrice!.toString()).toBe("388.6");
    expect(isoDateOf(options.expireDate!)).toBe("2026-03-31");
  });

  it("builds order queries with statuses by member name and instants as Dates", () => {
    const today = codec.todayOrdersOptions({ status: ["FilledStatus", "NewStatus"], side: "Sell", market: "US" });
    expect(today).toEqual({ status: [E.OrderStatus.Filled, E.OrderStatus.New], side: E.OrderSide.Sell, market: E.Market.US });
    const history = codec.historyOrdersOptions({ symbol: "AAPL.US", start_at: "2026-03-01", end_at: "2026-03-10T08:00:00Z" });
    expect(history).toEqual({ symbol: "AAPL.US", startAt: new Date("2026-03-01T00:00:00Z"), endAt: new Date("2026-03-10T08:00:00Z") });
    expect(codec.estimateMaxPurchaseOptions({ symbol: "700.HK", order_type: "LO", side: "Buy", price: "388" })).toMatchObject({
      orderType: E.OrderType.LO,
      fractionalShares: false,
    });
    expect(codec.replaceOrder({ order_id: "709043056541253632", quantity: "100", price: "300" })).toEqual({
      orderId: "709043056541253632",
      quantity: dec("100"),
      price: dec("300"),
    });
  });
});
