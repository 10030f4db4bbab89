import * as TechnicalIndicators from "technicalindicators";
import * as TradingSignals from "trading-signals";
import { describe, expect, it } from "vitest";
import * as Library from "./index";
import { type Bars, REFERENCE_SEEDS as SEEDS, referenceBars as barsFor } from "./testing/random-bars";

/*
 * Values are compared with technicalindicators 3.x and trading-signals 6.x (their "Faster"
 * number classes) on seeded random walks. Where a library seeds or rounds differently, the
 * comparison starts once the difference has decayed below the tolerance, and the reason is
 * stated beside it. TA-Lib parity of the warm-up itself is covered by conventions.test.ts.
 */

const TOLERANCE = 1e-9;

const list = (values: Float64Array) => Array.from(values);

/** Right-aligns a technicalindicators result (it drops warm-up bars) onto the bar index. */
const alignRight = <T>(result: T[], length: number): (T | undefined)[] => {
  const aligned: (T | undefined)[] = new Array(length).fill(undefined);
  const offset = length - result.length;
  result.forEach((value, i) => {
    aligned[offset + i] = value;
  });
  return aligned;
};

/**
 * Expects |ours − theirs| ≤ tolerance · max(1, |theirs|) on every bar from `from`; a library that
 * rounds its output is compared with an absolute tolerance of half its last printed digit.
 */
const expectClose = (ours: ArrayLike<number>, theirs: ArrayLike<number | null | undefined>, from: number, tolerance = TOLERANCE, absolute = 0) => {
  let compared = 0;
  for (let i = from; i < ours.length; i++) {
    const expected = theirs[i];
    expect(expected, `bar ${i}`).toBeTypeOf("number");
    const difference = Math.abs(ours[i] - (expected as number));
    if (!(difference <= tolerance * Math.max(1, Math.abs(expected as number)) + absolute)) {
      expect.fail(`bar ${i}: ours ${ours[i]} vs theirs ${expected} (tolerance ${tolerance})`);
    }
    compared++;
  }
  expect(compared).toBeGreaterThan(100);
};

/** Feeds every bar to a trading-signals indicator, returning its result per bar (null in warm-up). */
const feed = <TInput, TResult>(length: number, input: (index: number) => TInput, update: (value: TInput) => TResult | null): (TResult | null)[] =>
  Array.from({ length }, (_, i) => update(input(i)));

const candle = (bars: Bars) => (i: number) => ({
  open: bars.open[i],
  high: bars.high[i],
  low: bars.low[i],
  close: bars.close[i],
  volume: bars.volume[i],
});

describe.each(SEEDS)("on random series %i", (seed) => {
  const bars = barsFor(seed);
  const { high, low, close, volume } = bars;
  const n = close.length;

  it("matches SMA of both libraries from the first value", () => {
    const ours = Library.sma(close, 20);
    expectClose(ours, alignRight(TechnicalIndicators.sma({ period: 20, values: list(close) }), n), 19);
    const theirs = new TradingSignals.FasterSMA(20);
    expectClose(
      ours,
      feed(
        n,
        (i) => close[i],
        (value) => theirs.update(value, false),
      ),
      19,
    );
  });

  it("matches EMA of technicalindicators from the first value and trading-signals once its first-price seed has decayed", () => {
    const ours = Library.ema(close, 20);
    expectClose(ours, alignRight(TechnicalIndicators.ema({ period: 20, values: list(close) }), n), 19);
    // trading-signals seeds with the first price instead of the SMA; (19/21)^400 < 1e-17.
    const theirs = new TradingSignals.FasterEMA(20);
    expectClose(
      ours,
      feed(
        n,
        (i) => close[i],
        (value) => theirs.update(value, false),
      ),
      400,
    );
  });

  it("matches WMA of both libraries from the first value", () => {
    const ours = Library.wma(close, 20);
    expectClose(ours, alignRight(TechnicalIndicators.wma({ period: 20, values: list(close) }), n), 19);
    const theirs = new TradingSignals.FasterWMA(20);
    expectClose(
      ours,
      feed(
        n,
        (i) => close[i],
        (value) => theirs.update(value, false),
      ),
      19,
    );
  });

  it("matches RSI of trading-signals exactly and of technicalindicators to its two printed decimals", () => {
    const ours = Library.rsi(close, 14);
    const theirs = new TradingSignals.FasterRSI(14);
    expectClose(
      ours,
      feed(
        n,
        (i) => close[i],
        (value) => theirs.update(value, false),
      ),
      14,
    );
    // technicalindicators rounds RSI with toFixed(2).
    expectClose(ours, alignRight(TechnicalIndicators.rsi({ period: 14, values: list(close) }), n), 14, TOLERANCE, 0.005);
  });

  it("matches MACD of both libraries once their EMA seeds have decayed", () => {
    const ours = Library.macd(close, 12, 26, 9);
    // technicalindicators seeds the fast EMA at bar 11 (TA-Lib at bar 25) and outputs from bar 25.
    const theirs = alignRight(
      TechnicalIndicators.macd({
        values: list(close),
        fastPeriod: 12,
        slowPeriod: 26,
        signalPeriod: 9,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      }),
      n,
    );
    expectClose(
      ours.macd,
      theirs.map((value) => value?.MACD),
      300,
    );
    expectClose(
      ours.signal,
      theirs.map((value) => value?.signal),
      300,
    );
    expectClose(
      ours.histogram,
      theirs.map((value) => value?.histogram),
      300,
    );
    // trading-signals seeds every EMA with its first input.
    const signals = new TradingSignals.FasterMACD(new TradingSignals.FasterEMA(12), new TradingSignals.FasterEMA(26), new TradingSignals.FasterEMA(9));
    const fed = feed(
      n,
      (i) => close[i],
      (value) => signals.update(value, false),
    );
    expectClose(
      ours.macd,
      fed.map((value) => value?.macd),
      600,
    );
    expectClose(
      ours.signal,
      fed.map((value) => value?.signal),
      600,
    );
    expectClose(
      ours.histogram,
      fed.map((value) => value?.histogram),
      600,
    );
  });

  it("matches Bollinger Bands of both libraries from the first value", () => {
    const ours = Library.bollingerBands(close, 20, 2);
    const theirs = alignRight(TechnicalIndicators.bollingerbands({ period: 20, stdDev: 2, values: list(close) }), n);
    expectClose(
      ours.upper,
      theirs.map((value) => value?.upper),
      19,
    );
    expectClose(
      ours.middle,
      theirs.map((value) => value?.middle),
      19,
    );
    expectClose(
      ours.lower,
      theirs.map((value) => value?.lower),
      19,
    );
    // trading-signals waits for period + 1 values before its first bands.
    const signals = new TradingSignals.FasterBollingerBands(20, 2);
    const fed = feed(
      n,
      (i) => close[i],
      (value) => signals.update(value, false),
    );
    expectClose(
      ours.upper,
      fed.map((value) => value?.upper),
      20,
    );
    expectClose(
      ours.middle,
      fed.map((value) => value?.middle),
      20,
    );
    expectClose(
      ours.lower,
      fed.map((value) => value?.lower),
      20,
    );
  });

  it("matches ATR of technicalindicators from the first value and trading-signals once its extra first bar has decayed", () => {
    const ours = Library.atr(high, low, close, 14);
    expectClose(ours, alignRight(TechnicalIndicators.atr({ period: 14, high: list(high), low: list(low), close: list(close) }), n), 14);
    // trading-signals counts bar 0's high − low as a true range and starts one bar earlier.
    const signals = new TradingSignals.FasterATR(14);
    expectClose(
      ours,
      feed(n, candle(bars), (bar) => signals.update(bar, false)),
      600,
    );
  });

  it("matches the fast stochastic of technicalindicators and the full stochastic of trading-signals", () => {
    const fast = Library.stochastic(high, low, close, 14, 1, 3);
    const theirs = alignRight(TechnicalIndicators.stochastic({ period: 14, signalPeriod: 3, high: list(high), low: list(low), close: list(close) }), n);
    expectClose(
      fast.k,
      theirs.map((value) => value?.k),
      15,
    );
    expectClose(
      fast.d,
      theirs.map((value) => value?.d),
      15,
    );
    const full = Library.stochastic(high, low, close, 14, 3, 3);
    const signals = new TradingSignals.FasterStochasticOscillator(14, 3, 3);
    const fed = feed(n, candle(bars), (bar) => signals.update(bar, false));
    expectClose(
      full.k,
      fed.map((value) => value?.stochK),
      17,
    );
    expectClose(
      full.d,
      fed.map((value) => value?.stochD),
      17,
    );
  });

  it("matches ADX and the directional indicators of both libraries once their Wilder seeds have decayed", () => {
    const ours = Library.adx(high, low, close, 14);
    // Both libraries seed the smoothed DM/TR with plain sums of the first 14 bars; TA-Lib sums
    // 13 and smooths the 14th. The difference decays like (13/14)^n.
    const theirs = alignRight(TechnicalIndicators.adx({ period: 14, high: list(high), low: list(low), close: list(close) }), n);
    expectClose(
      ours.adx,
      theirs.map((value) => value?.adx),
      800,
      1e-8,
    );
    expectClose(
      ours.plusDi,
      theirs.map((value) => value?.pdi),
      800,
      1e-8,
    );
    expectClose(
      ours.minusDi,
      theirs.map((value) => value?.mdi),
      800,
      1e-8,
    );
    const signals = new TradingSignals.FasterADX(14);
    const fed = feed(n, candle(bars), (bar) => {
      const value = signals.update(bar, false);
      // trading-signals reports ±DI as fractions.
      return value === null ? null : { adx: value, plusDi: Number(signals.pdi) * 100, minusDi: Number(signals.mdi) * 100 };
    });
    expectClose(
      ours.adx,
      fed.map((value) => value?.adx),
      800,
      1e-8,
    );
    expectClose(
      ours.plusDi,
      fed.map((value) => value?.plusDi),
      800,
      1e-8,
    );
    expectClose(
      ours.minusDi,
      fed.map((value) => value?.minusDi),
      800,
      1e-8,
    );
  });

  it("matches CCI of both libraries from the first value", () => {
    const ours = Library.cci(high, low, close, 20);
    expectClose(ours, alignRight(TechnicalIndicators.cci({ period: 20, high: list(high), low: list(low), close: list(close) }), n), 19);
    const signals = new TradingSignals.FasterCCI(20);
    expectClose(
      ours,
      feed(n, candle(bars), (bar) => signals.update(bar, false)),
      19,
    );
  });

  it("matches OBV of both libraries up to their zero start", () => {
    // Both libraries start the running total at 0 on bar 1; TA-Lib starts at bar 0's volume.
    const ours = Library.obv(close, volume).map((value) => value - volume[0]);
    expectClose(ours, alignRight(TechnicalIndicators.obv({ close: list(close), volume: list(volume) }), n), 1);
    const signals = new TradingSignals.FasterOBV();
    expectClose(
      ours,
      feed(n, candle(bars), (bar) => signals.update(bar, false)),
      1,
    );
  });

  it("matches the anchored VWAP of both libraries from the first bar", () => {
    const ours = Library.vwap(high, low, close, volume);
    expectClose(ours, alignRight(TechnicalIndicators.vwap({ high: list(high), low: list(low), close: list(close), volume: list(volume) }), n), 0);
    const signals = new TradingSignals.FasterVWAP();
    expectClose(
      ours,
      feed(n, candle(bars), (bar) => signals.update(bar, false)),
      0,
    );
  });

  it("matches MFI of technicalindicators to its two printed decimals", () => {
    const ours = Library.mfi(high, low, close, volume, 14);
    const theirs = TechnicalIndicators.mfi({
      period: 14,
      high: list(high),
      low: list(low),
      close: list(close),
      volume: list(volume),
    });
    // technicalindicators skips bar 0 entirely, so its first value is one bar late; it rounds with toFixed(2).
    expectClose(ours, alignRight(theirs, n), 15, TOLERANCE, 0.005);
  });

  it("matches Williams %R of technicalindicators from the first value", () => {
    const ours = Library.williamsR(high, low, close, 14);
    expectClose(ours, alignRight(TechnicalIndicators.williamsr({ period: 14, high: list(high), low: list(low), close: list(close) }), n), 13);
  });

  it("matches ROC of both libraries from the first value", () => {
    const ours = Library.roc(close, 10);
    expectClose(ours, alignRight(TechnicalIndicators.roc({ period: 10, values: list(close) }), n), 10);
    // trading-signals reports the change as a fraction.
    const signals = new TradingSignals.FasterROC(10);
    expectClose(
      ours,
      feed(
        n,
        (i) => close[i],
        (value) => {
          const result = signals.update(value, false);
          return result === null ? null : result * 100;
        },
      ),
      10,
    );
  });

  it("matches Keltner Channels (EMA ± multiplier · ATR) of technicalindicators from the first value", () => {
    const ours = Library.keltnerChannels(high, low, close, 20, 2, 10);
    const theirs = alignRight(
      TechnicalIndicators.keltnerchannels({
        maPeriod: 20,
        atrPeriod: 10,
        useSMA: false,
        multiplier: 2,
        high: list(high),
        low: list(low),
        close: list(close),
      }),
      n,
    );
    expectClose(
      ours.upper,
      theirs.map((value) => value?.upper),
      19,
    );
    expectClose(
      ours.middle,
      theirs.map((value) => value?.middle),
      19,
    );
    expectClose(
      ours.lower,
      theirs.map((value) => value?.lower),
      19,
    );
  });

  it("matches Parabolic SAR of technicalindicators once both have reversed at the same bar", () => {
    const ours = Library.parabolicSar(high, low, 0.02, 0.2);
    // technicalindicators always starts long; TA-Lib picks the start from the first −DM. They
    // coincide after the first common reversal. trading-signals clamps against the bar two back
    // only on penetration, a different rule, so it is not compared.
    expectClose(ours, alignRight(TechnicalIndicators.psar({ high: list(high), low: list(low), step: 0.02, max: 0.2 }), n), 200);
  });

  it("matches the Ichimoku lines of technicalindicators, with the spans shifted forward", () => {
    const ours = Library.ichimoku(high, low, close, 9, 26, 52, 26);
    // technicalindicators returns unshifted spans and starts every line at bar 51.
    const theirs = alignRight(
      TechnicalIndicators.ichimokucloud({
        high: list(high),
        low: list(low),
        conversionPeriod: 9,
        basePeriod: 26,
        spanPeriod: 52,
        displacement: 26,
      }),
      n,
    );
    expectClose(
      ours.tenkan,
      theirs.map((value) => value?.conversion),
      51,
    );
    expectClose(
      ours.kijun,
      theirs.map((value) => value?.base),
      51,
    );
    expectClose(
      ours.senkouA,
      theirs.map((_, i) => theirs[i - 26]?.spanA),
      51 + 26,
    );
    expectClose(
      ours.senkouB,
      theirs.map((_, i) => theirs[i - 26]?.spanB),
      51 + 26,
    );
    expect(Array.from(ours.chikou)).toEqual(list(close));
  });
});
