import { describe, expect, it } from "vitest";
import { isUuid, marketClock, marketTime, money, percent, signedMoney, tradingDay, zoneOf } from "./format";

describe("figures as the console shows them", () => {
  it("writes money with its currency to the cent, exactly from the API's decimal strings", () => {
    expect(money("-45.8", "USD")).toBe("-USD 45.80");
    expect(money("1234567.005", "USD")).toBe("USD 1,234,567.01");
    expect(money("0.1", "HKD")).toBe("HKD 0.10");
    expect(money(null, "USD")).toBe("–");
    expect(signedMoney("12", "USD")).toBe("+USD 12.00");
    expect(signedMoney("0", "USD")).toBe("USD 0.00");
  });

  it("writes ratios in percent, a win rate of 0 as 0.00%", () => {
    expect(percent(0)).toBe("0.00%");
    expect(percent(0.4, 0)).toBe("40%");
    expect(percent(undefined)).toBe("–");
  });

  it("shows times in the market's zone with the zone named, and a daily bar's time as its date", () => {
    expect(zoneOf("700.HK")).toBe("Asia/Hong_Kong");
    expect(zoneOf("AAPL.US")).toBe("America/New_York");
    expect(marketClock("2024-03-15T13:31:05Z", "America/New_York")).toBe("09:31:05 EDT");
    expect(marketTime("2024-03-15T13:31:05Z", "America/New_York")).toBe("Mar 15, 2024, 09:31 EDT");
    expect(tradingDay("2024-03-15T00:00:00.000Z", "America/New_York")).toBe("Mar 15, 2024");
    expect(tradingDay("2024-03-15T20:00:00.000Z", "America/New_York")).toBe("Mar 15, 2024");
    expect(tradingDay("2024-03-15", "Asia/Hong_Kong")).toBe("Mar 15, 2024");
  });

  it("knows an id the API made from a name", () => {
    expect(isUuid("8a1b8fb9-d37b-4346-9504-c0b285b019f9")).toBe(true);
    expect(isUuid("admin")).toBe(false);
  });
});
