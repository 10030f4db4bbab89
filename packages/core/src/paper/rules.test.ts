import { describe, expect, it } from "vitest";
import { HkStockTicksPhase1, UsTicks } from "../market/tick-size";
import { expireDateProblems, quantityProblems, refusalOf, tickProblems, trailingProblems } from "./rules";
import { allowedSessions, endOfTradingDate, preOpeningWindow } from "./sessions";

describe("quantities", () => {
  it("refuses an HK quantity that is not whole board lots and says how to split it", () => {
    const [problem] = quantityProblems("HK", "LO", "150", 100);
    expect(problem).toMatchObject({ field: "submitted_quantity", code: "INVALID_LOT_SIZE" });
    expect(problem.message).toContain("send 100 as LO and the 50 odd shares as an ODD order");
  });

  it("takes whole HK lots, and odd lots only as ODD orders for less than a lot", () => {
    expect(quantityProblems("HK", "LO", "300", 100)).toEqual([]);
    expect(quantityProblems("HK", "ODD", "37", 100)).toEqual([]);
    expect(quantityProblems("HK", "ODD", "100", 100)[0].code).toBe("INVALID_ODD_LOT_QUANTITY");
  });

  it("refuses fractional shares in any market and takes any whole number in the US", () => {
    expect(quantityProblems("US", "LO", "1.5", 1)[0].code).toBe("INVALID_QUANTITY");
    expect(quantityProblems("US", "LO", "7", 1)).toEqual([]);
  });
});

describe("tick sizes", () => {
  it("refuses an HK price between ticks and names the valid neighbours", () => {
    const [problem] = tickProblems(HkStockTicksPhase1, [{ field: "submitted_price", value: "780.3" }]);
    expect(problem.code).toBe("INVALID_TICK_SIZE");
    expect(problem.message).toContain("tick size at this price is 0.5 (nearest valid prices 780 and 780.5)");
  });

  it("takes US cents above $1 and refuses sub-cent prices there", () => {
    expect(tickProblems(UsTicks, [{ field: "submitted_price", value: "188.93" }])).toEqual([]);
    expect(tickProblems(UsTicks, [{ field: "submitted_price", value: "188.935" }])[0].message).toContain("nearest valid prices 188.93 and 188.94");
    expect(tickProblems(UsTicks, [{ field: "submitted_price", value: "0.1234" }])).toEqual([]);
  });

  it("skips prices that are not given", () => {
    expect(tickProblems(UsTicks, [{ field: "trigger_price", value: undefined }])).toEqual([]);
  });
});

describe("GTD dates and trailing percentages", () => {
  it("refuses an expire_date before the trading date the order is for", () => {
    expect(expireDateProblems("US", "GTD", "2027-04-12", "2027-04-13")[0].code).toBe("EXPIRE_DATE_INVALID");
  });

  it("takes an expire_date on a weekend after the trading date (the Friday before is the last day)", () => {
    expect(expireDateProblems("US", "GTD", "2027-04-17", "2027-04-13")).toEqual([]);
    expect(expireDateProblems("US", "Day", "2000-01-01", "2027-04-13")).toEqual([]);
  });

  it("refuses a trailing percentage of 100 or more", () => {
    expect(trailingProblems("TSLPPCT", "100")[0].code).toBe("INVALID_TRAILING_PERCENT");
    expect(trailingProblems("TSLPPCT", "2.5")).toEqual([]);
  });

  it("joins several problems into one refusal coded by the first", () => {
    const refusal = refusalOf([
      ...quantityProblems("HK", "LO", "150", 100),
      ...tickProblems(HkStockTicksPhase1, [{ field: "submitted_price", value: "780.3" }]),
    ]);
    expect(refusal).toMatchObject({ status: 400, code: "INVALID_LOT_SIZE" });
    expect((refusal.details.problems as unknown[]).length).toBe(2);
  });
});

describe("sessions", () => {
  it("trades US orders in regular hours unless outside_rth widens them; HK in regular hours only", () => {
    expect(allowedSessions("US", null)).toEqual(["Intraday"]);
    expect(allowedSessions("US", "ANY_TIME")).toEqual(["Pre", "Intraday", "Post"]);
    expect(allowedSessions("US", "OVERNIGHT")).toEqual(["Overnight", "Pre", "Intraday", "Post"]);
    expect(allowedSessions("HK", "ANY_TIME")).toEqual(["Intraday"]);
  });

  it("ends a US day order at 16:00 New York time, or 20:00 with extended hours", () => {
    expect(new Date(endOfTradingDate("US", "2027-04-13", ["Intraday"])!).toISOString()).toBe("2027-04-13T20:00:00.000Z");
    expect(new Date(endOfTradingDate("US", "2027-04-13", ["Pre", "Intraday", "Post"])!).toISOString()).toBe("2027-04-14T00:00:00.000Z");
    expect(endOfTradingDate("US", "2027-04-17", ["Intraday"])).toBeNull();
  });

  it("opens the HK pre-opening input window 09:00–09:15 of a trading day only", () => {
    expect(preOpeningWindow("HK", Date.parse("2027-04-13T01:05:00Z"))).toEqual({ trading_date: "2027-04-13", opens_at: Date.parse("2027-04-13T01:30:00Z") });
    expect(preOpeningWindow("HK", Date.parse("2027-04-13T01:16:00Z"))).toBeNull();
    expect(preOpeningWindow("HK", Date.parse("2027-04-17T01:05:00Z"))).toBeNull();
    expect(preOpeningWindow("US", Date.parse("2027-04-13T13:05:00Z"))).toBeNull();
  });
});
