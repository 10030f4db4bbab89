import { describe, expect, it } from "vitest";
import { canonicalSymbol, marketOfSymbol, parseOptionSymbol } from "./types";

describe("canonicalSymbol", () => {
  it("upper-cases, adds the market's suffix to a bare ticker and drops HK leading zeros", () => {
    expect(canonicalSymbol("aapl", "US")).toEqual({ symbol: "AAPL.US" });
    expect(canonicalSymbol("00700.hk", "HK")).toEqual({ symbol: "700.HK" });
    expect(canonicalSymbol("600519.SH", "CN")).toEqual({ symbol: "600519.SH" });
    expect(canonicalSymbol("BRK.B", "US")).toEqual({ symbol: "BRK.B.US" });
  });

  it("refuses a suffix of another market and a bare CN ticker", () => {
    expect(canonicalSymbol("700.HK", "US")).toEqual({ problem: "the symbol's suffix .HK belongs to market HK, not US" });
    expect("problem" in canonicalSymbol("600519", "CN")).toBe(true);
    expect("problem" in canonicalSymbol("A B.US", "US")).toBe(true);
  });

  it("names the market of a suffix", () => {
    expect([marketOfSymbol("700.HK"), marketOfSymbol("000001.SZ"), marketOfSymbol("D05.SG"), marketOfSymbol("X.JP")]).toEqual(["HK", "CN", "SG", undefined]);
  });
});

describe("parseOptionSymbol", () => {
  it("reads expiry, side and strike (in thousandths) from a US option symbol", () => {
    expect(parseOptionSymbol("AAPL260417C110000.US")).toEqual({ option_type: "call", strike_price: "110", expiry_date: "2026-04-17" });
    expect(parseOptionSymbol("TSLA251219P2500.US")).toEqual({ option_type: "put", strike_price: "2.5", expiry_date: "2025-12-19" });
  });

  it("ignores stocks and impossible dates", () => {
    expect(parseOptionSymbol("AAPL.US")).toBeUndefined();
    expect(parseOptionSymbol("AAPL260230C110000.US")).toBeUndefined();
  });
});
