import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import * as Library from "./index";
import { randomBars } from "./testing/random-bars";

/*
 * TA-Lib's seeds and degenerate-window answers, checked against direct computations from their
 * definitions (docs/indicators.md lists them), plus parameter and input validation.
 */

const mean = (values: ArrayLike<number>, from: number, to: number) => {
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i];
  return sum / (to - from);
};

const trueRanges = (high: Float64Array, low: Float64Array, close: Float64Array) =>
  Array.from(high, (h, i) => (i === 0 ? NaN : Math.max(h - low[i], Math.abs(h - close[i - 1]), Math.abs(low[i] - close[i - 1]))));

const expectRelativelyClose = (actual: number, expected: number, tolerance = 1e-12) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(expected)));

const bars = randomBars(400, 7, { volatility: 0.02 });
const { high, low, close, volume } = bars;

describe("TA-Lib seeds", () => {
  it("seeds the EMA with the SMA of the first period values", () => {
    const values = Library.ema(close, 10);
    expect(values[9]).toBe(mean(close, 0, 10));
    expect(values[10]).toBe((close[10] - values[9]) * (2 / 11) + values[9]);
  });

  it("seeds MACD's fast EMA with the SMA of the fast_period values that end at bar slow_period − 1", () => {
    const [fast, slow, signal] = [12, 26, 9];
    const result = Library.macd(close, fast, slow, signal);
    let fastEma = mean(close, slow - fast, slow);
    let slowEma = mean(close, 0, slow);
    const line: number[] = [fastEma - slowEma];
    for (let i = slow; i < close.length; i++) {
      fastEma = (close[i] - fastEma) * (2 / (fast + 1)) + fastEma;
      slowEma = (close[i] - slowEma) * (2 / (slow + 1)) + slowEma;
      line.push(fastEma - slowEma);
    }
    let signalEma = mean(line, 0, signal);
    const start = slow + signal - 2;
    expect(Number.isNaN(result.macd[start - 1])).toBe(true);
    for (let i = start; i < close.length; i++) {
      if (i > start) signalEma = (line[i - slow + 1] - signalEma) * (2 / (signal + 1)) + signalEma;
      expectRelativelyClose(result.macd[i], line[i - slow + 1]);
      expectRelativelyClose(result.signal[i], signalEma);
      expectRelativelyClose(result.histogram[i], line[i - slow + 1] - signalEma);
    }
  });

  it("seeds RSI with plain means of the first period gains and losses", () => {
    const period = 14;
    let gain = 0;
    let loss = 0;
    for (let i = 1; i <= period; i++) {
      const change = close[i] - close[i - 1];
      if (change > 0) gain += change;
      else loss -= change;
    }
    expectRelativelyClose(Library.rsi(close, period)[period], (100 * gain) / (gain + loss));
  });

  it("seeds ATR with the mean true range of bars 1..period, skipping bar 0", () => {
    const period = 14;
    const ranges = trueRanges(high, low, close);
    const values = Library.atr(high, low, close, period);
    expectRelativelyClose(values[period], mean(ranges, 1, period + 1));
    expectRelativelyClose(values[period + 1], (values[period] * (period - 1) + ranges[period + 1]) / period);
  });

  it("starts ADX at bar 2·period − 1 as the mean DX of bars period..2·period − 1, with TA-Lib's DM seeding", () => {
    const period = 14;
    const ranges = trueRanges(high, low, close);
    let plus = 0;
    let minus = 0;
    let range = 0;
    let dxSum = 0;
    const result = Library.adx(high, low, close, period);
    for (let i = 1; i < 2 * period; i++) {
      const up = high[i] - high[i - 1];
      const down = low[i - 1] - low[i];
      const plusMove = up > 0 && up > down ? up : 0;
      const minusMove = down > 0 && down > up ? down : 0;
      if (i < period) {
        plus += plusMove;
        minus += minusMove;
        range += ranges[i];
        continue;
      }
      plus = plus - plus / period + plusMove;
      minus = minus - minus / period + minusMove;
      range = range - range / period + ranges[i];
      const plusDi = (100 * plus) / range;
      const minusDi = (100 * minus) / range;
      expectRelativelyClose(result.plusDi[i], plusDi);
      expectRelativelyClose(result.minusDi[i], minusDi);
      dxSum += (100 * Math.abs(plusDi - minusDi)) / (plusDi + minusDi);
    }
    expect(Number.isNaN(result.adx[2 * period - 2])).toBe(true);
    expectRelativelyClose(result.adx[2 * period - 1], dxSum / period);
  });

  it("starts Parabolic SAR short at bar 0's high when bar 1's down-move beats its up-move", () => {
    const sar = Library.parabolicSar(Float64Array.of(10, 9.9, 9.8), Float64Array.of(9, 8, 7.5));
    expect(Number.isNaN(sar[0])).toBe(true);
    expect(sar[1]).toBe(10);
    const rising = new Library.ParabolicSar();
    rising.update(10, 9);
    expect(rising.update(11, 9.5)).toBe(9);
    expect(rising.direction).toBe(1);
  });

  it("emits both stochastic lines together once %D is defined", () => {
    const result = Library.stochastic(high, low, close, 5, 3, 3);
    expect(Number.isNaN(result.k[7])).toBe(true);
    expect(Number.isFinite(result.k[8]) && Number.isFinite(result.d[8])).toBe(true);
  });
});

describe("degenerate windows", () => {
  const flat = (length: number, price: number) => new Float64Array(length).fill(price);

  it("reads 0 for RSI, stochastic %K, Williams %R and CCI on a flat window, as TA-Lib does", () => {
    // 1.1 is not exactly representable, so the CCI window's mean is an ulp away from its values.
    const price = flat(60, 1.1);
    expect(Library.rsi(price, 14)[59]).toBe(0);
    expect(Library.stochastic(price, price, price, 14, 3, 3).k[59]).toBe(0);
    expect(Library.williamsR(price, price, price, 14)[59]).toBe(0);
    for (const period of [5, 8, 14, 30]) expect(Library.cci(price, price, price, period)[59]).toBe(0);
  });

  it("reads MFI 0 for a window without money flow and drops the residue of flows that left it", () => {
    const series = randomBars(100, 3);
    const h = Float64Array.from([...series.high.subarray(0, 50), ...flat(50, series.close[49])]);
    const l = Float64Array.from([...series.low.subarray(0, 50), ...flat(50, series.close[49])]);
    const c = Float64Array.from([...series.close.subarray(0, 50), ...flat(50, series.close[49])]);
    const values = Library.mfi(h, l, c, series.volume, 14);
    expect(values[99]).toBe(0);
  });

  it("answers NaN for a VWAP without volume and recovers once volume returns", () => {
    const zero = new Float64Array(30);
    expect(Number.isNaN(Library.vwap(high.subarray(0, 30), low.subarray(0, 30), close.subarray(0, 30), zero)[29])).toBe(true);
    const rollingVolume = Float64Array.from(volume.subarray(0, 60), (v, i) => (i >= 20 && i < 40 ? 0 : v));
    const rolling = Library.vwap(high.subarray(0, 60), low.subarray(0, 60), close.subarray(0, 60), rollingVolume, 10);
    expect(Number.isNaN(rolling[35])).toBe(true);
    const typical = (i: number) => (high[i] + low[i] + close[i]) / 3;
    expectRelativelyClose(rolling[40], typical(40));
  });

  it("keeps Bollinger bands tight around a price far from zero (no Σx² cancellation)", () => {
    const price = Float64Array.from({ length: 5000 }, (_, i) => 1e6 + Math.sin(i) * 1e-3);
    const bands = Library.bollingerBands(price, 20, 1);
    for (const i of [19, 2500, 4999]) {
      const window = price.subarray(i - 19, i + 1);
      const average = mean(window, 0, 20);
      const deviation = Math.sqrt(window.reduce((sum, x) => sum + (x - average) ** 2, 0) / 20);
      expect(Math.abs(bands.upper[i] - bands.middle[i] - deviation)).toBeLessThan(deviation * 1e-6);
    }
  });
});

describe("CCI beyond the direct-scan limit", () => {
  it("uses the order-statistics tree and still matches a direct computation", () => {
    const period = Library.CCI_DIRECT_SCAN_LIMIT + 44;
    const long = randomBars(900, 5, { tick: 0.01 });
    const values = Library.cci(long.high, long.low, long.close, period);
    const streaming = new Library.Cci(period);
    const typical = Array.from(long.close, (c, i) => (long.high[i] + long.low[i] + c) / 3);
    for (let i = 0; i < typical.length; i++) {
      expect(Object.is(streaming.update(long.high[i], long.low[i], long.close[i]), values[i])).toBe(true);
      if (i < period - 1) continue;
      const window = typical.slice(i - period + 1, i + 1);
      const average = mean(window, 0, period);
      const deviation = window.reduce((sum, x) => sum + Math.abs(x - average), 0) / period;
      expectRelativelyClose(values[i], (typical[i] - average) / (0.015 * deviation), 1e-9);
    }
  });

  it("reads 0 on a flat window", () => {
    const price = new Float64Array(600).fill(1.1);
    expect(Library.cci(price, price, price, 400)[599]).toBe(0);
  });
});

describe("relations between indicators", () => {
  it("gives a Bollinger middle line equal to the SMA bit for bit", () => {
    expect(Array.from(Library.bollingerBands(close, 20, 2).middle)).toEqual(Array.from(Library.sma(close, 20)));
  });

  it("gives a Keltner middle line equal to the EMA once the ATR is defined", () => {
    const middle = Library.keltnerChannels(high, low, close, 20, 2, 30).middle;
    const average = Library.ema(close, 20);
    expect(Array.from(middle.subarray(30))).toEqual(Array.from(average.subarray(30)));
    expect(Number.isNaN(middle[29])).toBe(true);
  });

  it("shifts the Ichimoku spans forward by the displacement, from data already known", () => {
    const displacement = 26;
    const result = Library.ichimoku(high, low, close, 9, 26, 52, displacement);
    for (let i = 52 + displacement; i < close.length; i++) {
      expect(result.senkouA[i]).toBe((result.tenkan[i - displacement] + result.kijun[i - displacement]) / 2);
      const from = i - displacement - 51;
      const to = i - displacement + 1;
      expect(result.senkouB[i]).toBe((Math.max(...high.subarray(from, to)) + Math.min(...low.subarray(from, to))) / 2);
    }
  });
});

describe("validation", () => {
  const code = (action: () => unknown) => {
    try {
      action();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return `${(error as DomainError).status} ${(error as DomainError).code}`;
    }
    return "no error";
  };

  it("rejects periods that are not positive integers", () => {
    for (const period of [0, -3, 1.5, Number.NaN, 10_001]) {
      expect(code(() => new Library.Sma(period))).toBe("400 INVALID_INDICATOR_PARAMETER");
      expect(code(() => Library.rsi(close, period))).toBe("400 INVALID_INDICATOR_PARAMETER");
    }
  });

  it("rejects a MACD whose fast period is not below its slow period", () => {
    expect(code(() => new Library.Macd(26, 12, 9))).toBe("400 INVALID_INDICATOR_PARAMETER");
    expect(code(() => Library.macd(close, 12, 12, 9))).toBe("400 INVALID_INDICATOR_PARAMETER");
  });

  it("rejects a Parabolic SAR step above its maximum", () => {
    expect(code(() => new Library.ParabolicSar(0.3, 0.2))).toBe("400 INVALID_INDICATOR_PARAMETER");
  });

  it("rejects batch inputs of different lengths", () => {
    expect(code(() => Library.atr(high, low.subarray(1), close))).toBe("400 INDICATOR_INPUT_LENGTH_MISMATCH");
  });

  it("returns empty outputs for an empty series", () => {
    const empty = new Float64Array(0);
    expect(Library.sma(empty, 5).length).toBe(0);
    expect(Library.obv(empty, empty).length).toBe(0);
    expect(Library.macd(empty).signal.length).toBe(0);
    expect(Library.ichimoku(empty, empty, empty).senkouB.length).toBe(0);
  });
});
