import { describe, expect, it } from "vitest";
import { HkStockTicksPhase1 } from "../market/tick-size";
import { dayNumberOf } from "../market/zoned-time";
import { marketTickProblems, quantityProblems, tickProblems, trailingPercentProblems } from "./order-rules";

describe("order-term rules", () => {
  it("takes whole lots given as numbers or as decimal text, and names what a broken lot would split into", () => {
    expect(quantityProblems(300, 100)).toEqual([]);
    expect(quantityProblems("300", 100)).toEqual([]);
    expect(quantityProblems(2005, 100)).toEqual([
      {
        field: "quantity",
        code: "INVALID_LOT_SIZE",
        message: "quantity=2005 is not a multiple of the board lot 100",
        values: { quantity: 2005, lot_size: 100, whole_lots: 2000, odd_shares: 5 },
      },
    ]);
    expect(quantityProblems("1.5", 1)[0]).toMatchObject({ code: "INVALID_QUANTITY", values: { quantity: 1.5 } });
    expect(quantityProblems(0, 1)[0].code).toBe("INVALID_QUANTITY");
  });

  it("holds an odd-lot order to fewer shares than one lot", () => {
    expect(quantityProblems(37, 100, true)).toEqual([]);
    expect(quantityProblems(100, 100, true)[0]).toMatchObject({ code: "INVALID_ODD_LOT_QUANTITY", values: { quantity: 100, lot_size: 100 } });
  });

  it("names the tick and the nearest valid prices of a price off the grid", () => {
    expect(tickProblems(HkStockTicksPhase1, [{ field: "price", value: 780.3 }])).toEqual([
      {
        field: "price",
        code: "INVALID_TICK_SIZE",
        message: "price=780.3 is not on the tick grid: the tick size at this price is 0.5 (nearest valid prices 780 and 780.5)",
        values: { price: 780.3, tick_size: 0.5, below: 780, above: 780.5 },
      },
    ]);
  });

  it("refuses a price on no grid of its market that day: HK prices valid for products or for shares pass", () => {
    const day = dayNumberOf("2025-09-01");
    expect(marketTickProblems("US", day, "price", 188.935)[0].values).toMatchObject({ below: 188.93, above: 188.94 });
    expect(marketTickProblems("US", day, "price", 188.93)).toEqual([]);
    // 2.002: an ETP price (tick 0.002 from 1 to 5), not a share price (0.01): the engine cannot tell, the venue decides.
    expect(marketTickProblems("HK", day, "price", 2.002)).toEqual([]);
    // 25.05: on the equity grid (0.05 from 20 to 100) until HKEX narrowed it (0.02 from 20 to 50 on 2025-08-04); never an ETP price (0.02).
    expect(marketTickProblems("HK", dayNumberOf("2025-08-01"), "price", 25.05)).toEqual([]);
    expect(marketTickProblems("HK", day, "price", 25.05)[0].values).toMatchObject({ tick_size: 0.02, below: 25.04, above: 25.06 });
    expect(marketTickProblems("HK", day, "price", 2.003)[0].code).toBe("INVALID_TICK_SIZE");
  });

  it("takes a trailing percentage strictly between 0 and 100", () => {
    expect(trailingPercentProblems("2.5")).toEqual([]);
    expect(trailingPercentProblems(100)[0]).toMatchObject({ code: "INVALID_TRAILING_PERCENT", values: { trailing_percent: 100 } });
    expect(trailingPercentProblems(null)).toEqual([]);
  });
});
