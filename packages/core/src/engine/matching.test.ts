import { describe, expect, it } from "vitest";
import { AT_LEVEL, AT_OPEN, fillableShares, limitReach, marketable, NOT_REACHED, touchReach } from "./matching";

// One bar: open, high, low.
const bar = [100, 102, 98] as const;

describe("the shared matching rules", () => {
  it("fill a buy limit at the limit when the low reaches it, at the open when the bar opens below it", () => {
    expect(limitReach(true, 99, ...bar)).toBe(AT_LEVEL);
    expect(limitReach(true, 100, ...bar)).toBe(AT_LEVEL);
    expect(limitReach(true, 101, ...bar)).toBe(AT_OPEN);
    expect(limitReach(true, 97.99, ...bar)).toBe(NOT_REACHED);
  });

  it("mirror that for a sell limit with the high", () => {
    expect(limitReach(false, 101, ...bar)).toBe(AT_LEVEL);
    expect(limitReach(false, 99, ...bar)).toBe(AT_OPEN);
    expect(limitReach(false, 102.01, ...bar)).toBe(NOT_REACHED);
  });

  it("touch a rising trigger on the high and a falling one on the low, at the open when the bar gaps through", () => {
    expect(touchReach(true, 101, ...bar)).toBe(AT_LEVEL);
    expect(touchReach(true, 99, ...bar)).toBe(AT_OPEN);
    expect(touchReach(true, 103, ...bar)).toBe(NOT_REACHED);
    expect(touchReach(false, 99, ...bar)).toBe(AT_LEVEL);
    expect(touchReach(false, 101, ...bar)).toBe(AT_OPEN);
    expect(touchReach(false, 97, ...bar)).toBe(NOT_REACHED);
  });

  it("call a price marketable at or through the limit", () => {
    expect(marketable(true, 100, 100)).toBe(true);
    expect(marketable(true, 100.01, 100)).toBe(false);
    expect(marketable(false, 100, 100)).toBe(true);
    expect(marketable(false, 99.99, 100)).toBe(false);
  });
});

describe("fill sizes (the paper broker's minutes, the engine's max_participation)", () => {
  it("take what remains when the bar allows it, else whole lots of what it allows", () => {
    expect(fillableShares(5000, 2350, 100)).toBe(2300);
    expect(fillableShares(500, 2350, 100)).toBe(500);
    expect(fillableShares(500, 99, 100)).toBe(0);
  });

  it("fill an odd lot whole or not at all", () => {
    expect(fillableShares(37, 400, 100)).toBe(37);
    expect(fillableShares(37, 30, 100)).toBe(0);
  });
});
