import { describe, expect, it } from "vitest";
import { Dec } from "../money/decimal";
import { HkStockTicksPhase1, UsTicks } from "../market/tick-size";
import { limitFillPrice, onTick, sweepLevels, touchPrice, trailingLimit, trailingTrigger } from "./matching";
import type { MinuteBar } from "./types";

const bar = (open: string, high: string, low: string, close: string, volume = 1000): MinuteBar => ({
  start: 0,
  end: 60_000,
  open,
  high,
  low,
  close,
  volume,
  session: "Intraday",
});
const level = (price: string, volume: number, position = 1) => ({ position, price, volume, order_num: 1 });

describe("limit orders against a minute", () => {
  it("fills a buy at its limit when the minute trades down to it", () => {
    expect(limitFillPrice("Buy", new Dec("100.50"), bar("101", "101.2", "100.4", "100.9"))?.toFixed()).toBe("100.5");
  });

  it("fills a buy at the open when the minute opens below the limit", () => {
    expect(limitFillPrice("Buy", new Dec("100.50"), bar("100.2", "100.6", "100.1", "100.3"))?.toFixed()).toBe("100.2");
  });

  it("leaves a buy resting while the minute's low stays above the limit", () => {
    expect(limitFillPrice("Buy", new Dec("100.50"), bar("101", "101.2", "100.51", "100.9"))).toBeNull();
  });

  it("fills a sell at its limit when the high reaches it, at the open when the minute opens above", () => {
    expect(limitFillPrice("Sell", new Dec("101"), bar("100.5", "101.1", "100.4", "100.9"))?.toFixed()).toBe("101");
    expect(limitFillPrice("Sell", new Dec("101"), bar("101.3", "101.5", "100.9", "101"))?.toFixed()).toBe("101.3");
    expect(limitFillPrice("Sell", new Dec("101"), bar("100.5", "100.99", "100.4", "100.9"))).toBeNull();
  });
});

describe("touch triggers", () => {
  it("touches a falling trigger at the trigger, or at the open of a minute that gaps through it", () => {
    expect(touchPrice("down", new Dec("99"), bar("100", "100.1", "98.9", "99.5"))?.toFixed()).toBe("99");
    expect(touchPrice("down", new Dec("99"), bar("98.5", "98.8", "98.2", "98.6"))?.toFixed()).toBe("98.5");
    expect(touchPrice("down", new Dec("99"), bar("100", "100.1", "99.01", "99.5"))).toBeNull();
  });

  it("touches a rising trigger at the trigger, or at the open of a minute that gaps above it", () => {
    expect(touchPrice("up", new Dec("101"), bar("100", "101.2", "99.9", "101"))?.toFixed()).toBe("101");
    expect(touchPrice("up", new Dec("101"), bar("101.4", "101.6", "101.3", "101.5"))?.toFixed()).toBe("101.4");
  });
});

describe("sweeping the displayed book", () => {
  const asks = [level("10.01", 300, 1), level("10.02", 500, 2), level("10.03", 200, 3)];

  it("takes levels best first until the quantity is met, the last one partly", () => {
    expect(sweepLevels("Buy", asks, new Dec(600), null, 10).map((f) => [f.price.toFixed(), f.quantity.toFixed()])).toEqual([
      ["10.01", "300"],
      ["10.02", "300"],
    ]);
  });

  it("stops at the limit price and at the level count", () => {
    expect(sweepLevels("Buy", asks, new Dec(2000), new Dec("10.02"), 10).map((f) => f.quantity.toFixed())).toEqual(["300", "500"]);
    expect(sweepLevels("Buy", asks, new Dec(2000), null, 1).map((f) => f.quantity.toFixed())).toEqual(["300"]);
  });

  it("takes every displayed level and no more when the order is larger than the book", () => {
    const fills = sweepLevels("Buy", asks, new Dec(5000), null, 10);
    expect(fills.reduce((sum, f) => sum.plus(f.quantity), new Dec(0)).toFixed()).toBe("1000");
  });

  it("takes bids down to a sell's limit", () => {
    const bids = [level("9.99", 100, 1), level("9.98", 100, 2), level("9.97", 100, 3)];
    expect(sweepLevels("Sell", bids, new Dec(1000), new Dec("9.98"), 10).map((f) => f.price.toFixed())).toEqual(["9.99", "9.98"]);
  });
});

describe("trailing orders", () => {
  it("trails a sell below the high by an amount, on the tick grid below", () => {
    const trigger = trailingTrigger({ side: "Sell", trailing_amount: "3.3", trailing_percent: null }, new Dec("612.4"), HkStockTicksPhase1);
    expect(trigger.toFixed()).toBe("609");
    expect(trailingLimit("Sell", trigger, "1", HkStockTicksPhase1).toFixed()).toBe("608");
  });

  it("trails a buy above the low by a percentage, on the tick grid above", () => {
    const trigger = trailingTrigger({ side: "Buy", trailing_amount: null, trailing_percent: "1" }, new Dec("188.93"), UsTicks);
    expect(trigger.toFixed()).toBe("190.82");
    expect(trailingLimit("Buy", trigger, "0.05", UsTicks).toFixed()).toBe("190.87");
  });

  it("rounds onto the grid in the direction asked", () => {
    expect(onTick(HkStockTicksPhase1, new Dec("780.3"), "down").toFixed()).toBe("780");
    expect(onTick(HkStockTicksPhase1, new Dec("780.3"), "up").toFixed()).toBe("780.5");
  });
});
