import { describe, expect, it } from "vitest";
import {
  AdjustTypeInput,
  CalcIndexField,
  CalcIndexInput,
  LongportPeriodName,
  listInput,
  Period,
  PeriodInput,
  periodFromLongport,
  periodMinutes,
  SubTypeInput,
  TradeSessionsInput,
} from "./quote-enums";
import { CandlesticksRequest, HistoryCandlesticksRequest, SubscribeRequest, SymbolsRequest } from "./quote-requests";

describe("period", () => {
  it("accepts canonical names, minute aliases and LongPort names, and yields the canonical name", () => {
    expect(["1m", "60m", "1h", "Min_60", "240m", "Day", "1mo", "Quarter"].map((p) => PeriodInput.parse(p))).toEqual([
      "1m",
      "1h",
      "1h",
      "1h",
      "4h",
      "1d",
      "1mo",
      "1q",
    ]);
  });

  it("rejects spellings outside the documented list", () => {
    for (const value of ["1M", "90m", "1H", "day", "", "Min_7"]) expect(PeriodInput.safeParse(value).success, value).toBe(false);
  });

  it("maps every period to a LongPort Period member and back", () => {
    for (const period of Period.options) expect(periodFromLongport(LongportPeriodName[period])).toBe(period);
    expect(LongportPeriodName["1h"]).toBe("Min_60");
    expect(LongportPeriodName["1mo"]).toBe("Month");
  });

  it("knows the length of intraday periods only", () => {
    expect(periodMinutes("45m")).toBe(45);
    expect(periodMinutes("4h")).toBe(240);
    expect(periodMinutes("1d")).toBeNull();
  });
});

describe("other quote enums", () => {
  it("accepts LongPort names and documented aliases", () => {
    expect(AdjustTypeInput.parse("forward_adjust")).toBe("ForwardAdjust");
    expect(TradeSessionsInput.parse("all")).toBe("All");
    expect(SubTypeInput.parse("depth")).toBe("Depth");
    expect(CalcIndexInput.parse("pe_ttm_ratio")).toBe("PeTtmRatio");
    expect(CalcIndexInput.parse("LastDone")).toBe("LastDone");
    expect(TradeSessionsInput.safeParse("ALL").success).toBe(false);
  });

  it("names calc index fields in snake case", () => {
    expect(CalcIndexField.YtdChangeRate).toBe("ytd_change_rate");
    expect(CalcIndexField.FiveMinutesChangeRate).toBe("five_minutes_change_rate");
    expect(CalcIndexField.DividendRatioTtm).toBe("dividend_ratio_ttm");
  });

  it("reads lists as arrays or comma-separated strings", () => {
    const subTypes = listInput(SubTypeInput);
    expect(subTypes.parse("quote, Depth,trade")).toEqual(["Quote", "Depth", "Trade"]);
    expect(subTypes.parse(["Quote"])).toEqual(["Quote"]);
    expect(subTypes.safeParse("").success).toBe(false);
    expect(subTypes.safeParse("quote,candles").success).toBe(false);
  });
});

describe("quote request bodies", () => {
  it("fills the documented defaults", () => {
    expect(CandlesticksRequest.parse({ symbol: "700.HK" })).toEqual({
      symbol: "700.HK",
      period: "1d",
      count: 100,
      adjust_type: "NoAdjust",
      trade_sessions: "Intraday",
    });
    expect(SubscribeRequest.parse({ symbols: "AAPL.US,700.HK", sub_types: "quote" })).toEqual({
      symbols: ["AAPL.US", "700.HK"],
      sub_types: ["Quote"],
      is_first_push: false,
    });
  });

  it("keeps the date part of date-times and refuses counts over 1000 and 501 symbols", () => {
    expect(HistoryCandlesticksRequest.parse({ symbol: "AAPL.US", start: "2026-01-02T00:00:00Z", end: "2026-01-09", period: "60m" })).toMatchObject({
      start: "2026-01-02",
      end: "2026-01-09",
      period: "1h",
    });
    expect(CandlesticksRequest.safeParse({ symbol: "AAPL.US", count: 1001 }).success).toBe(false);
    expect(SymbolsRequest.safeParse({ symbols: Array.from({ length: 501 }, (_, i) => `${i}.HK`) }).success).toBe(false);
  });
});
