import { describe, expect, it } from "vitest";
import { Money } from "../money/money";
import { type FeeMemo, Fees } from "./index";

const longport = () => Fees.resolve("longport");
const freshMemo = (): FeeMemo => ({ market: "", side: "", quantity: NaN, price: NaN, day: NaN, fee: Money.ZERO });
const rate = (value: string) => Money.of(value);

describe("Fees.feeModel", () => {
  it("charges a percent of notional whenever a rate is set, the schedule in US and HK only, else nothing", () => {
    expect(Fees.feeModel(rate("0.001"), longport(), "US")).toBe("percent");
    expect(Fees.feeModel(null, longport(), "HK")).toBe("schedule");
    expect(Fees.feeModel(null, longport(), "SG")).toBe("none");
    expect(Fees.feeModel(null, null, "US")).toBe("none");
  });
});

describe("Fees.settledValue", () => {
  it("settles a broker's trade to the cent, half up, and keeps the percent model's exact", () => {
    const value = Money.of("1234.565");
    expect(Fees.settledValue(value, Fees.settlesInCents(null, false)).toString()).toBe("1234.57");
    expect(Fees.settledValue(value, Fees.settlesInCents(rate("0.001"), true)).toString()).toBe("1234.57");
    expect(Fees.settledValue(value, Fees.settlesInCents(rate("0.001"), false)).toString()).toBe("1234.565");
  });
});

describe("Fees.orderFee", () => {
  it("charges the percent model's rate of the notional exactly", () => {
    const fee = Fees.orderFee(rate("0.001"), null, "US", "buy", 30, 123.45, undefined, 0, "", freshMemo());
    expect(fee.toString()).toBe("3.7035");
  });

  it("charges the schedule's total for the trade date, and answers the same question again from the memo", () => {
    const memo = freshMemo();
    const fee = Fees.orderFee(null, longport(), "US", "sell", 100, 190, undefined, 1, "2024-08-01", memo);
    expect(fee.toFixed(2)).toBe("2.84");
    expect(Fees.orderFee(null, longport(), "US", "sell", 100, 190, undefined, 1, "2024-08-01", memo)).toBe(memo.fee);
    // Another exchange day asks the schedule again (the SEC fee was $0/M in August 2025).
    expect(Fees.orderFee(null, longport(), "US", "sell", 100, 190, undefined, 2, "2025-08-01", memo).toFixed(2)).toBe("2.31");
  });

  it("charges nothing for no shares or where no schedule prices", () => {
    expect(Fees.orderFee(null, longport(), "US", "buy", 0, 190, undefined, 1, "2024-08-01", freshMemo()).isZero()).toBe(true);
    expect(Fees.orderFee(null, longport(), "SG", "buy", 100, 190, undefined, 1, "2024-08-01", freshMemo()).isZero()).toBe(true);
  });
});

describe("Fees.partFee", () => {
  it("charges each part the schedule on the order so far less what was charged, so a per-order minimum is paid once", () => {
    const config = longport();
    const first = Fees.partFee(config, "US", "buy", Money.of(20), Money.of(2000), Money.ZERO, "2024-01-03");
    const second = Fees.partFee(config, "US", "buy", Money.of(60), Money.of(6000), first, "2024-01-03");
    const whole = Fees.chargesOn(config, "US", "buy", Money.of(60), Money.of(6000), "2024-01-03").total;
    expect(first.plus(second).toString()).toBe(whole.toString());
  });

  it("never charges a part below zero", () => {
    expect(Fees.partFee(longport(), "US", "buy", Money.of(20), Money.of(2000), Money.of(1000), "2024-01-03").isZero()).toBe(true);
  });
});

describe("Fees.feeSoFar", () => {
  it("charges an order that executed nothing nothing, without details", () => {
    expect(Fees.feeSoFar(longport(), "HK", "buy", Money.ZERO, Money.ZERO, "2025-09-15")).toEqual({ total: Money.ZERO, details: null });
  });

  it("is the schedule's charges on what the order executed", () => {
    const charged = Fees.feeSoFar(longport(), "HK", "buy", Money.of(1000), Money.of(400_000), "2025-09-15");
    expect(charged.total.toFixed(2)).toBe("465.80");
    expect(charged.details?.market).toBe("HK");
  });
});
