/**
 * Indicator throughput: bars per second of this library's batch and streaming forms over
 * 1,000,000 bars, beside technicalindicators and trading-signals measured in the same run, and a
 * hand-written Float64Array loop for SMA and EMA as the floor to compare against.
 *
 *   npx tsx bench/indicators.ts              (under a minute)
 *   npx tsx bench/indicators.ts --markdown   (the table as Markdown, for docs/indicators.md)
 *   BENCH_BARS=200000 npx tsx bench/indicators.ts
 *
 * Every figure is the best of several runs after a warm-up run, so it measures JIT-compiled
 * code. The two libraries are first timed on LIBRARY_BARS (100,000) bars; where that shows a
 * full-size run would be quick they are timed again on all bars, otherwise the per-bar figure
 * from the smaller series is reported. Each library cell says which ("1M" or "100k").
 */
import * as TechnicalIndicators from "technicalindicators";
import * as TradingSignals from "trading-signals";
import * as Library from "../packages/core/src/indicators/index";
import { randomBars } from "../packages/core/src/indicators/testing/random-bars";
import { markdownTable } from "./support/table";

const BARS = Number(process.env.BENCH_BARS ?? 1_000_000);
const LIBRARY_BARS = Math.min(BARS, Number(process.env.BENCH_LIBRARY_BARS ?? 100_000));
const RUNS = 5;
const SECONDS = 0.25;
const LIBRARY_RUNS = 2;

const bars = randomBars(BARS, 42, { volatility: 0.01, tick: 0.01 });
const { high, low, close, volume } = bars;

/** What the benchmark keeps so the JIT cannot drop unused results. */
let sink = 0;
const consume = (value: unknown) => {
  if (typeof value === "number") sink += value === value ? value : 0;
  else if (value instanceof Float64Array) sink += value[value.length - 1] || 0;
  else if (Array.isArray(value)) sink += value.length;
  else if (value !== null && typeof value === "object") {
    for (const field of Object.values(value)) consume(field);
  }
};

/**
 * Best bars-per-second over at least `minimumRuns` timed runs and `minimumSeconds` of timing,
 * after one untimed warm-up run. The best run is the one least disturbed by other processes.
 */
const measure = (barCount: number, run: () => unknown, minimumRuns: number, minimumSeconds: number): number => {
  consume(run());
  let best = Infinity;
  let total = 0;
  for (let runs = 0; runs < minimumRuns || (total < minimumSeconds && runs < 50); runs++) {
    const started = process.hrtime.bigint();
    consume(run());
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    best = Math.min(best, elapsed);
    total += elapsed;
  }
  return barCount / best;
};

/** The inputs the two libraries take: plain arrays and candle objects, built outside the timing. */
interface LibraryInput {
  close: number[];
  high: number[];
  low: number[];
  volume: number[];
  candles: { open: number; high: number; low: number; close: number; volume: number }[];
}

const libraryInput = (length: number): LibraryInput => {
  const input: LibraryInput = {
    close: Array.from(close.subarray(0, length)),
    high: Array.from(high.subarray(0, length)),
    low: Array.from(low.subarray(0, length)),
    volume: Array.from(volume.subarray(0, length)),
    candles: [],
  };
  input.candles = input.close.map((value, i) => ({
    open: bars.open[i],
    high: input.high[i],
    low: input.low[i],
    close: value,
    volume: input.volume[i],
  }));
  return input;
};

// Built only after this library has been measured (see below), so their million candle objects
// do not sit in the heap, and keep the garbage collector busy, while our loops are timed.
let smallInput: LibraryInput;
let fullInput: LibraryInput;

// Every streaming loop below is written out per indicator rather than through a shared helper:
// a helper's call site would see twenty different update functions, turn megamorphic and stop
// inlining, which would measure the benchmark instead of the indicators (ours and theirs alike).

interface Case {
  name: string;
  batch: () => unknown;
  stream: () => unknown;
  technicalIndicators?: (input: LibraryInput) => unknown;
  tradingSignals?: (input: LibraryInput) => unknown;
  handLoop?: () => unknown;
}

// The reference loops a careful engineer would write by hand for one indicator: one allocation,
// NaN only where undefined, no ring buffer, no classes.
const handSma = (values: Float64Array, period: number) => {
  const output = new Float64Array(values.length).fill(NaN, 0, period - 1);
  let sum = 0;
  for (let i = 0; i < period - 1; i++) sum += values[i];
  for (let i = period - 1; i < values.length; i++) {
    sum += values[i];
    output[i] = sum / period;
    sum -= values[i - period + 1];
  }
  return output;
};

const handEma = (values: Float64Array, period: number) => {
  const output = new Float64Array(values.length).fill(NaN, 0, period - 1);
  const k = 2 / (period + 1);
  let sum = 0;
  for (let i = 0; i < period; i++) sum += values[i];
  let value = sum / period;
  output[period - 1] = value;
  for (let i = period; i < values.length; i++) output[i] = value = (values[i] - value) * k + value;
  return output;
};

const cases: Case[] = [
  {
    name: "SMA(20)",
    batch: () => Library.sma(close, 20),
    stream: () => {
      const indicator = new Library.Sma(20);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.sma({ period: 20, values: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterSMA(20);
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
    handLoop: () => handSma(close, 20),
  },
  {
    name: "EMA(20)",
    batch: () => Library.ema(close, 20),
    stream: () => {
      const indicator = new Library.Ema(20);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.ema({ period: 20, values: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterEMA(20);
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
    handLoop: () => handEma(close, 20),
  },
  {
    name: "WMA(20)",
    batch: () => Library.wma(close, 20),
    stream: () => {
      const indicator = new Library.Wma(20);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.wma({ period: 20, values: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterWMA(20);
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "RSI(14)",
    batch: () => Library.rsi(close, 14),
    stream: () => {
      const indicator = new Library.Rsi(14);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.rsi({ period: 14, values: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterRSI(14);
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "MACD(12,26,9)",
    batch: () => Library.macd(close, 12, 26, 9),
    stream: () => {
      const indicator = new Library.Macd(12, 26, 9);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) =>
      TechnicalIndicators.macd({
        values: input.close,
        fastPeriod: 12,
        slowPeriod: 26,
        signalPeriod: 9,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterMACD(new TradingSignals.FasterEMA(12), new TradingSignals.FasterEMA(26), new TradingSignals.FasterEMA(9));
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "Bollinger(20,2)",
    batch: () => Library.bollingerBands(close, 20, 2),
    stream: () => {
      const indicator = new Library.BollingerBands(20, 2);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.bollingerbands({ period: 20, stdDev: 2, values: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterBollingerBands(20, 2);
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "ATR(14)",
    batch: () => Library.atr(high, low, close, 14),
    stream: () => {
      const indicator = new Library.Atr(14);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.atr({ period: 14, high: input.high, low: input.low, close: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterATR(14);
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "Stochastic(14,3,3)",
    batch: () => Library.stochastic(high, low, close, 14, 3, 3),
    stream: () => {
      const indicator = new Library.Stochastic(14, 3, 3);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    // technicalindicators has the fast stochastic only (period 14, %D 3).
    technicalIndicators: (input) =>
      TechnicalIndicators.stochastic({
        period: 14,
        signalPeriod: 3,
        high: input.high,
        low: input.low,
        close: input.close,
      }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterStochasticOscillator(14, 3, 3);
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "ADX(14)",
    batch: () => Library.adx(high, low, close, 14),
    stream: () => {
      const indicator = new Library.Adx(14);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.adx({ period: 14, high: input.high, low: input.low, close: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterADX(14);
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "CCI(20)",
    batch: () => Library.cci(high, low, close, 20),
    stream: () => {
      const indicator = new Library.Cci(20);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.cci({ period: 20, high: input.high, low: input.low, close: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterCCI(20);
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "OBV",
    batch: () => Library.obv(close, volume),
    stream: () => {
      const indicator = new Library.Obv();
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i], volume[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.obv({ close: input.close, volume: input.volume }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterOBV();
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "VWAP",
    batch: () => Library.vwap(high, low, close, volume),
    stream: () => {
      const indicator = new Library.Vwap();
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i], volume[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.vwap({ high: input.high, low: input.low, close: input.close, volume: input.volume }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterVWAP();
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "MFI(14)",
    batch: () => Library.mfi(high, low, close, volume, 14),
    stream: () => {
      const indicator = new Library.Mfi(14);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i], volume[i]);
      return last;
    },
    technicalIndicators: (input) =>
      TechnicalIndicators.mfi({
        period: 14,
        high: input.high,
        low: input.low,
        close: input.close,
        volume: input.volume,
      }),
  },
  {
    name: "Williams %R(14)",
    batch: () => Library.williamsR(high, low, close, 14),
    stream: () => {
      const indicator = new Library.WilliamsR(14);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.williamsr({ period: 14, high: input.high, low: input.low, close: input.close }),
  },
  {
    name: "ROC(10)",
    batch: () => Library.roc(close, 10),
    stream: () => {
      const indicator = new Library.Roc(10);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(close[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.roc({ period: 10, values: input.close }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterROC(10);
      let last: unknown;
      for (const value of input.close) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "Keltner(20,2,10)",
    batch: () => Library.keltnerChannels(high, low, close, 20, 2, 10),
    stream: () => {
      const indicator = new Library.KeltnerChannels(20, 2, 10);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    technicalIndicators: (input) =>
      TechnicalIndicators.keltnerchannels({
        maPeriod: 20,
        atrPeriod: 10,
        useSMA: false,
        multiplier: 2,
        high: input.high,
        low: input.low,
        close: input.close,
      }),
  },
  {
    name: "Donchian(20)",
    batch: () => Library.donchianChannels(high, low, 20),
    stream: () => {
      const indicator = new Library.DonchianChannels(20);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i]);
      return last;
    },
  },
  {
    name: "Parabolic SAR",
    batch: () => Library.parabolicSar(high, low, 0.02, 0.2),
    stream: () => {
      const indicator = new Library.ParabolicSar(0.02, 0.2);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i]);
      return last;
    },
    technicalIndicators: (input) => TechnicalIndicators.psar({ high: input.high, low: input.low, step: 0.02, max: 0.2 }),
    tradingSignals: (input) => {
      const indicator = new TradingSignals.FasterPSAR({ accelerationStep: 0.02, accelerationMax: 0.2 });
      let last: unknown;
      for (const value of input.candles) last = indicator.update(value, false);
      return last;
    },
  },
  {
    name: "Ichimoku(9,26,52,26)",
    batch: () => Library.ichimoku(high, low, close, 9, 26, 52, 26),
    stream: () => {
      const indicator = new Library.Ichimoku(9, 26, 52, 26);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
    technicalIndicators: (input) =>
      TechnicalIndicators.ichimokucloud({
        high: input.high,
        low: input.low,
        conversionPeriod: 9,
        basePeriod: 26,
        spanPeriod: 52,
        displacement: 26,
      }),
  },
  {
    name: "SuperTrend(10,3)",
    batch: () => Library.superTrend(high, low, close, 10, 3),
    stream: () => {
      const indicator = new Library.SuperTrend(10, 3);
      let last: unknown;
      for (let i = 0; i < BARS; i++) last = indicator.update(high[i], low[i], close[i]);
      return last;
    },
  },
];

/** Full-size library runs are worth doing when they take at most this long each. */
const FULL_RUN_BUDGET_SECONDS = 0.5;

/** Bars per second of a library, and whether it was timed on all bars or on LIBRARY_BARS. */
const measureLibrary = (run: ((input: LibraryInput) => unknown) | undefined) => {
  if (!run) return undefined;
  const small = measure(LIBRARY_BARS, () => run(smallInput), LIBRARY_RUNS, 0);
  if (fullInput === smallInput || BARS / small > FULL_RUN_BUDGET_SECONDS) {
    return { barsPerSecond: small, bars: LIBRARY_BARS };
  }
  return { barsPerSecond: measure(BARS, () => run(fullInput), LIBRARY_RUNS, 0), bars: BARS };
};

const millions = (barsPerSecond: number | undefined) => (barsPerSecond === undefined ? "—" : (barsPerSecond / 1e6).toFixed(barsPerSecond < 1e7 ? 2 : 1));
const count = (value: number) => (value >= 1e6 ? `${value / 1e6}M` : `${value / 1e3}k`);
const library = (result: { barsPerSecond: number; bars: number } | undefined) =>
  result === undefined ? "—" : `${millions(result.barsPerSecond)} (${count(result.bars)})`;
const ratio = (value: number | undefined) => (value === undefined ? "—" : `${value.toFixed(value < 10 ? 1 : 0)}×`);

const started = performance.now();
const ours = cases.map((indicator) => ({
  batch: measure(BARS, indicator.batch, RUNS, SECONDS),
  stream: measure(BARS, indicator.stream, RUNS, SECONDS),
  handLoop: indicator.handLoop && measure(BARS, indicator.handLoop, RUNS, SECONDS),
}));
process.stderr.write("measured this library\n");
smallInput = libraryInput(LIBRARY_BARS);
fullInput = LIBRARY_BARS === BARS ? smallInput : libraryInput(BARS);
const rows = cases.map((indicator, i) => {
  const { batch, stream, handLoop } = ours[i];
  const technical = measureLibrary(indicator.technicalIndicators);
  const trading = measureLibrary(indicator.tradingSignals);
  process.stderr.write(`measured the libraries on ${indicator.name}\n`);
  return {
    indicator: indicator.name,
    "batch M bars/s": millions(batch),
    "stream M bars/s": millions(stream),
    "hand loop M bars/s": millions(handLoop),
    "technicalindicators M bars/s": library(technical),
    "trading-signals M bars/s": library(trading),
    "batch ÷ technicalindicators": ratio(technical && batch / technical.barsPerSecond),
    "stream ÷ technicalindicators": ratio(technical && stream / technical.barsPerSecond),
    "batch ÷ trading-signals": ratio(trading && batch / trading.barsPerSecond),
    "stream ÷ trading-signals": ratio(trading && stream / trading.barsPerSecond),
    "hand loop ÷ batch": handLoop ? (handLoop / batch).toFixed(2) : "—",
  };
});

console.log(
  `\nIndicators: ${BARS.toLocaleString("en-US")} bars for this library and the hand loop; the libraries on ` +
    `the bar count in brackets (throughput per bar, so the columns compare directly). ` +
    `Best of at least ${RUNS} runs and ${SECONDS} s (libraries ${LIBRARY_RUNS} runs) after a warm-up. Node ${process.version}.`,
);
if (process.argv.includes("--markdown")) {
  // For docs/indicators.md.
  console.log(markdownTable(rows));
} else {
  console.table(rows);
}
console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s (checksum ${sink.toExponential(3)})`);
