import { describe, expect, it } from "vitest";
import { assertSupportedMarket, marketOf, MarketInput, normalizeSymbol } from "./market";

describe("symbols and markets", () => {
  it("maps suffixes to markets", () => {
    expect(["AAPL.US", "700.HK", "600519.SH", "399001.SZ", "D05.SG", "BRK.B.US"].map(marketOf)).toEqual(["US", "HK", "CN", "CN", "SG", "US"]);
  });

  it("normalises case and HK leading zeros", () => {
    expect(normalizeSymbol(" aapl.us ")).toBe("AAPL.US");
    expect(normalizeSymbol("00700.hk")).toBe("700.HK");
    expect(normalizeSymbol("brk.b.us")).toBe("BRK.B.US");
  });

  it("rejects symbols without a known region as INVALID_SYMBOL", () => {
    expect(() => marketOf("AAPL")).toThrowError(/ticker\.region/);
    expect(() => marketOf("AAPL.XX")).toThrowError(/unknown region/);
  });

  it("declares CN and SG unsupported with MARKET_NOT_SUPPORTED", () => {
    expect(() => assertSupportedMarket("SG")).toThrowError(/not supported/);
    expect(() => assertSupportedMarket("HK")).not.toThrow();
  });

  it("accepts lower-case market names in requests", () => {
    expect(MarketInput.parse("hk")).toBe("HK");
    expect(MarketInput.safeParse("JP").success).toBe(false);
  });
});
