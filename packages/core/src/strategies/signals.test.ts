import { describe, expect, it } from "vitest";
import { macd } from "../indicators/macd";
import { Strategies } from "./index";
import { barsFrom, randomWalk, run, trades } from "./test-bars";

describe("ma_crossover", () => {
  // fast SMA(2) and slow SMA(4): equal through bar 4, fast above from bar 5, below from bar 9.
  const closes = [5, 5, 5, 5, 5, 6, 7, 8, 7, 6, 5, 4];

  it("buys exactly once on the bar where the fast average crosses above and sells on the cross back", () => {
    const strategy = Strategies.create("ma_crossover", { fast_period: 2, slow_period: 4 });
    expect(trades(strategy, barsFrom(closes))).toEqual([
      [5, "buy", 1],
      [9, "sell", 0],
    ]);
  });

  it("goes short on the cross below when short selling is allowed", () => {
    const strategy = Strategies.create("ma_crossover", { fast_period: 2, slow_period: 4, allow_short: true });
    expect(trades(strategy, barsFrom(closes))).toEqual([
      [5, "buy", 1],
      [9, "sell", -1],
    ]);
  });

  it("explains the signal with the averages that crossed", () => {
    const strategy = Strategies.create("ma_crossover", { fast_period: 2, slow_period: 4 });
    const [first] = run(strategy, barsFrom(closes));
    expect(first.signal).toMatchObject({
      strategy_id: "ma_crossover",
      symbol: "AAPL.US",
      reason: "SMA(2) crossed above SMA(4)",
    });
    expect(first.signal.timestamp).toBe(barsFrom(closes)[5].timestamp);
  });

  it("does not treat averages that start out apart as a cross", () => {
    const strategy = Strategies.create("ma_crossover", { fast_period: 2, slow_period: 4 });
    expect(trades(strategy, barsFrom([1, 2, 3, 4, 5, 6, 7, 8]))).toEqual([]);
  });

  it("keeps each symbol's averages apart", () => {
    const strategy = Strategies.create("ma_crossover", { fast_period: 2, slow_period: 4 });
    const apple = barsFrom(closes, { symbol: "AAPL.US" });
    const tencent = barsFrom(
      closes.map((c) => 100 - c),
      { symbol: "700.HK" },
    );
    const interleaved = apple.flatMap((bar, i) => [bar, tencent[i]]);
    const signals = run(strategy, interleaved).map(({ signal }) => [signal.symbol, signal.side]);
    expect(signals).toEqual([
      ["AAPL.US", "buy"],
      ["AAPL.US", "sell"],
      ["700.HK", "buy"],
    ]);
  });
});

describe("rsi_mean_reversion", () => {
  // RSI(3): 0 on bar 3 after three losses, 33.3 on bar 4, 55.6 on bar 5, 70.4 on bar 6.
  const closes = [10, 9, 8, 7, 8, 9, 10, 11];

  it("buys the oversold bar and sells when RSI recovers to the exit level", () => {
    const strategy = Strategies.create("rsi_mean_reversion", { period: 3 });
    expect(trades(strategy, barsFrom(closes))).toEqual([
      [3, "buy", 1],
      [5, "sell", 0],
    ]);
  });

  it("shorts the overbought bar when short selling is allowed", () => {
    const strategy = Strategies.create("rsi_mean_reversion", { period: 3, allow_short: true });
    expect(trades(strategy, barsFrom(closes))).toEqual([
      [3, "buy", 1],
      [5, "sell", 0],
      [6, "sell", -1],
    ]);
  });

  it("reports the RSI reading in the reason", () => {
    const strategy = Strategies.create("rsi_mean_reversion", { period: 3 });
    expect(run(strategy, barsFrom(closes)).map(({ signal }) => signal.reason)).toEqual(["RSI 0.00 below oversold 30", "RSI 55.56 back above exit level 50"]);
  });
});

describe("bollinger_breakout", () => {
  it("buys the close above the upper band and exits below the middle band", () => {
    // Period 5, 1.5 deviations: the jump to 13 lands above an upper band of 12.4; the return to 10 is under the 10.6 middle.
    const strategy = Strategies.create("bollinger_breakout", { period: 5, std_dev: 1.5 });
    expect(trades(strategy, barsFrom([10, 10, 10, 10, 10, 13, 10, 10]))).toEqual([
      [5, "buy", 1],
      [6, "sell", 0],
    ]);
  });

  it("does not trade a close that only touches a flat band", () => {
    const strategy = Strategies.create("bollinger_breakout", { period: 5, std_dev: 1.5 });
    expect(trades(strategy, barsFrom([10, 10, 10, 10, 10, 10, 10]))).toEqual([]);
  });
});

describe("macd_trend", () => {
  const closes = [10, 9.5, 9, 8.5, 8, 7.5, 7, 7.2, 7.6, 8.2, 9, 10, 11, 12, 11, 9.5, 8, 7];

  it("buys when the histogram turns positive and sells when it turns negative, matching the batch MACD", () => {
    const strategy = Strategies.create("macd_trend", { fast_period: 2, slow_period: 3, signal_period: 2 });
    const { histogram } = macd(Float64Array.from(closes), 2, 3, 2);
    const turnsUp = [...histogram.keys()].find((i) => i > 0 && histogram[i - 1] <= 0 && histogram[i] > 0)!;
    const turnsDown = [...histogram.keys()].find((i) => i > turnsUp && histogram[i - 1] >= 0 && histogram[i] < 0)!;
    expect(turnsUp).toBe(7);
    expect(trades(strategy, barsFrom(closes))).toEqual([
      [turnsUp, "buy", 1],
      [turnsDown, "sell", 0],
    ]);
  });
});

describe("donchian_breakout", () => {
  const rows: [close: number, high: number, low: number][] = [
    [10, 10.5, 9.5],
    [10, 10.5, 9.5],
    [10, 10.5, 9.5],
    [10, 10.5, 9.5],
    [11, 11.2, 10.8], // above the previous 3-bar high of 10.5
    [11.5, 11.7, 11.3],
    [11, 11.2, 10.9],
    [10.85, 10.95, 10.82], // below the previous 2-bar low of 10.9, above the 3-bar low of 10.8
  ];
  const bars = barsFrom(
    rows.map((r) => r[0]),
    { highs: rows.map((r) => r[1]), lows: rows.map((r) => r[2]) },
  );

  it("enters above the previous entry-period high and exits below the previous exit-period low", () => {
    const strategy = Strategies.create("donchian_breakout", { entry_period: 3, exit_period: 2 });
    expect(run(strategy, bars).map(({ index, signal }) => [index, signal.side, signal.reason])).toEqual([
      [4, "buy", "close 11 above the 3-bar high 10.5"],
      [7, "sell", "close 10.85 below the 2-bar low 10.9"],
    ]);
  });
});

describe("momentum", () => {
  it("buys when the rate of change passes the entry threshold and exits when it turns negative", () => {
    // 3-bar change: 0% on bar 3, +6% on bars 4 to 6, -4.7% on bar 7.
    const strategy = Strategies.create("momentum", { lookback_period: 3, entry_threshold: 5, exit_threshold: 0 });
    expect(trades(strategy, barsFrom([100, 100, 100, 100, 106, 106, 106, 101, 101]))).toEqual([
      [4, "buy", 1],
      [7, "sell", 0],
    ]);
  });
});

describe("trend_director", () => {
  const closes = [10, 10, 10, 10, 11, 12, 13, 12, 11, 10, 9, 8];
  const director = () => Strategies.create("trend_director", { fast_period: 2, slow_period: 4, ma_type: "sma", band_pct: 0 });

  it("reads the regime on every bar: long from bar 4, flat at bar 7, short from bar 8", () => {
    const strategy = director();
    const biases = barsFrom(closes).map((bar) => {
      strategy.onBar(bar);
      return strategy.bias(bar.symbol);
    });
    expect(biases).toEqual(["flat", "flat", "flat", "flat", "long", "long", "long", "flat", "short", "short", "short", "short"]);
  });

  it("trades its own regime when run alone, long only by default", () => {
    expect(trades(director(), barsFrom(closes))).toEqual([
      [4, "buy", 1],
      [7, "sell", 0],
    ]);
  });

  it("answers flat for a symbol it has not seen", () => {
    expect(director().bias("MSFT.US")).toBe("flat");
  });
});

describe("pullback_executor", () => {
  // RSI(2): 100, 50, 25 (bar 4, below 40), 62.5, 81.25 (bar 6, above 65).
  const closes = [10, 11, 12, 11, 10, 11, 12, 13];
  const executor = () => Strategies.create("pullback_executor", { rsi_period: 2, pullback_level: 40, exit_level: 65, trend_period: 5 });

  it("buys the pullback and takes profit at the exit level while the director is long", () => {
    expect(trades(executor(), barsFrom(closes), () => ({ bias: "long" }))).toEqual([
      [4, "buy", 1],
      [6, "sell", 0],
    ]);
  });

  it("closes the position on the bar the director turns short", () => {
    const signals = run(executor(), barsFrom(closes), (i) => ({ bias: i < 5 ? "long" : "short" }));
    expect(signals.map(({ index, signal }) => [index, signal.side, signal.reason])).toEqual([
      [4, "buy", "pullback in uptrend: RSI 25.00 below 40 (director bias)"],
      [5, "sell", "trend turned short (director bias)"],
    ]);
  });

  it("stays out while the director is flat", () => {
    expect(trades(executor(), barsFrom(closes), () => ({ bias: "flat" }))).toEqual([]);
  });

  it("follows a director's bias bar by bar in a two-timeframe run", () => {
    const director = Strategies.create("trend_director", { fast_period: 2, slow_period: 4, ma_type: "sma", band_pct: 0 });
    const higher = barsFrom([10, 10, 10, 10, 11, 12]);
    for (const bar of higher) director.onBar(bar);
    expect(director.bias("AAPL.US")).toBe("long");
    const signals = trades(executor(), barsFrom(closes), () => ({ bias: director.bias("AAPL.US") }));
    expect(signals).toEqual([
      [4, "buy", 1],
      [6, "sell", 0],
    ]);
  });
});

describe("ema_trend", () => {
  // EMA(2) crosses above EMA(3) on bar 3; on bar 8 the close of 13.5 falls more than one ATR(2) (1.23) under the 15 high close.
  const closes = [10, 10, 10, 11, 12, 13, 14, 15, 13.5];
  const strategy = () => Strategies.create("ema_trend", { fast_period: 2, slow_period: 3, atr_period: 2, atr_multiple: 1 });

  it("enters on the crossover and leaves on the ATR trailing stop while the averages still point up", () => {
    const signals = run(strategy(), barsFrom(closes));
    expect(signals.map(({ index, signal }) => [index, signal.side, signal.target_weight])).toEqual([
      [3, "buy", 1],
      [8, "sell", 0],
    ]);
    expect(signals[1].signal.reason).toMatch(/^trailing stop: close 13.5 below 13.7656/);
  });

  it("as an executor takes only crossovers in the director's direction", () => {
    expect(trades(strategy(), barsFrom(closes), () => ({ bias: "short" }))).toEqual([]);
  });
});

describe("every strategy", () => {
  it.each(Strategies.list().strategies.map((s) => s.strategy_id))("%s signals nothing before its warm-up and something on a long random walk", (id) => {
    const strategy = Strategies.create(id, {});
    let total = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const signals = run(Strategies.create(id, {}), randomWalk(600, seed));
      total += signals.length;
      for (const { index } of signals) expect(index).toBeGreaterThanOrEqual(strategy.warmupBars - 1);
    }
    expect(total).toBeGreaterThan(0);
  });

  it.each(Strategies.list().strategies.map((s) => s.strategy_id))("%s alternates buy and sell and keeps strength within 0 to 1", (id) => {
    const signals = run(Strategies.create(id, { allow_short: true }), randomWalk(600, 11));
    let position = 0;
    for (const { signal } of signals) {
      expect(signal.side).toBe(signal.target_weight > position ? "buy" : "sell");
      expect(signal.target_weight).not.toBe(position);
      expect(signal.strength).toBeGreaterThanOrEqual(0);
      expect(signal.strength).toBeLessThanOrEqual(1);
      position = signal.target_weight;
    }
  });
});
