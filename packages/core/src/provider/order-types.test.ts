import { describe, expect, it } from "vitest";
import { SubmitOrderRequest } from "./order-gateway";
import { checkOrderRules, isFinalOrderStatus, LongportOrderStatusName, OrderStatus, OrderTypeSpecs, SupportedOrderTypes } from "./order-types";

describe("order-type table", () => {
  it("lists the HK and US order types LongPort documents", () => {
    expect(SupportedOrderTypes.HK).toEqual(["LO", "ELO", "MO", "AO", "ALO", "ODD", "LIT", "MIT", "TSLPAMT", "TSLPPCT", "SLO"]);
    expect(SupportedOrderTypes.US).toEqual(["LO", "MO", "LIT", "MIT", "TSLPAMT", "TSLPPCT"]);
    expect(SupportedOrderTypes.CN).toEqual([]);
  });

  it("requires the fields each type needs", () => {
    expect(OrderTypeSpecs.LIT.required_fields).toEqual(["submitted_price", "trigger_price"]);
    expect(OrderTypeSpecs.MIT.required_fields).toEqual(["trigger_price"]);
    expect(OrderTypeSpecs.TSLPPCT.required_fields).toEqual(["trailing_percent", "limit_offset"]);
    expect(OrderTypeSpecs.SLO.replaceable).toBe(false);
  });

  it("accepts a complete US limit order", () => {
    expect(checkOrderRules("US", { order_type: "LO", time_in_force: "Day", submitted_price: "180.5" })).toEqual([]);
  });

  it("reports every problem of an order at once", () => {
    const problems = checkOrderRules("US", { order_type: "ELO", time_in_force: "GTD", outside_rth: "OVERNIGHT" });
    expect(problems.map((p) => p.code)).toEqual(["ORDER_TYPE_NOT_SUPPORTED", "MISSING_REQUIRED_FIELD", "MISSING_REQUIRED_FIELD", "OVERNIGHT_LIMIT_DAY_ONLY"]);
    expect(problems.map((p) => p.field)).toEqual(["order_type", "submitted_price", "expire_date", "outside_rth"]);
  });

  it("refuses outside_rth on HK orders", () => {
    expect(checkOrderRules("HK", { order_type: "MO", time_in_force: "Day", outside_rth: "ANY_TIME" })[0].code).toBe("OUTSIDE_RTH_NOT_APPLICABLE");
  });

  it("maps every wire status to a LongPort Node member and knows the final ones", () => {
    expect(Object.keys(LongportOrderStatusName)).toEqual(OrderStatus.options);
    expect(LongportOrderStatusName.PartialFilledStatus).toBe("PartialFilled");
    expect(OrderStatus.options.filter(isFinalOrderStatus)).toEqual(["FilledStatus", "RejectedStatus", "CanceledStatus", "ExpiredStatus", "PartialWithdrawal"]);
  });

  it("parses a submit body with aliases and numbers into wire values and decimal strings", () => {
    const parsed = SubmitOrderRequest.parse({
      symbol: "700.HK",
      order_type: "LO",
      side: "buy",
      submitted_quantity: 200,
      time_in_force: "GoodTilCanceled",
      submitted_price: "388.4",
    });
    expect(parsed).toMatchObject({ side: "Buy", submitted_quantity: "200", time_in_force: "GTC", submitted_price: "388.4" });
    expect(SubmitOrderRequest.safeParse({ symbol: "700.HK", order_type: "LO", side: "Buy", submitted_quantity: "0", time_in_force: "Day" }).success).toBe(
      false,
    );
  });
});
