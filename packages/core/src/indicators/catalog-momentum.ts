/**
 * The indicator catalog's entries for the momentum oscillators (RSI, MACD, the stochastic, CCI,
 * Williams %R and the rate of change): each entry's description, formula, parameters, outputs and
 * usage notes. catalog.ts lists them, with the other categories', in presentation order.
 */
import type { IndicatorMetadata } from "./metadata";
import { integer, single, VERSION } from "./catalog-parts";

export const rsi: IndicatorMetadata = {
  id: "rsi",
  name_cn: "相对强弱指数",
  name_en: "Relative Strength Index",
  category: "momentum",
  description: {
    summary: "Wilder's oscillator comparing the size of recent gains with recent losses, from 0 to 100.",
    formula:
      "avgGain, avgLoss: means of the first `period` gains / losses, then avg = (avg · (period − 1) + move) / period; RSI = 100 · avgGain / (avgGain + avgLoss)",
    interpretation:
      "Above 70 is commonly read as overbought, below 30 as oversold; divergences from price warn of exhaustion; 50 splits bullish from bearish momentum.",
  },
  parameters: [integer("period", 14, "Wilder smoothing period")],
  outputs: single("RSI in [0, 100]"),
  lib_ta: "RSI",
  usage_notes: [
    "Warm-up: NaN for the first period bars (period price changes are needed).",
    "A window with no price change at all reads 0, as in TA-Lib.",
    "Wilder smoothing has a long memory: values depend on history well beyond `period` bars, so start a few hundred bars early for stable values.",
  ],
  related_indicators: ["stochastic", "mfi", "williams_r", "cci"],
  version: VERSION,
};

export const macd: IndicatorMetadata = {
  id: "macd",
  name_cn: "指数平滑异同移动平均线",
  name_en: "Moving Average Convergence Divergence",
  category: "momentum",
  description: {
    summary: "Difference between a fast and a slow EMA, with an EMA of that difference as signal line.",
    formula: "macd = EMA(fast_period) − EMA(slow_period); signal = EMA(macd, signal_period); histogram = macd − signal",
    interpretation:
      "macd crossing above the signal (histogram turning positive) is a bullish signal, crossing below bearish; the zero line separates up from down momentum.",
  },
  parameters: [
    integer("fast_period", 12, "Fast EMA period; must be less than slow_period"),
    integer("slow_period", 26, "Slow EMA period"),
    integer("signal_period", 9, "EMA period of the signal line"),
  ],
  outputs: [
    { name: "macd", description: "Fast EMA minus slow EMA" },
    { name: "signal", description: "EMA of the macd line" },
    { name: "histogram", description: "macd minus signal" },
  ],
  lib_ta: "MACD",
  usage_notes: [
    "Warm-up: all three outputs are NaN for the first slow_period + signal_period − 2 bars (33 with defaults), as in TA-Lib.",
    "TA-Lib seeding: both EMAs start at bar slow_period − 1; the fast EMA is seeded with the SMA of the fast_period values ending there, not of the first fast_period values.",
  ],
  related_indicators: ["ema", "rsi", "roc"],
  version: VERSION,
};

export const stochastic: IndicatorMetadata = {
  id: "stochastic",
  name_cn: "随机指标",
  name_en: "Stochastic Oscillator",
  category: "momentum",
  description: {
    summary: "Where the close sits within the recent high-low range, smoothed into slow %K and %D.",
    formula: "fast %K = 100 · (close − lowest low) / (highest high − lowest low) over k_period; k = SMA(fast %K, k_smoothing); d = SMA(k, d_period)",
    interpretation: "Above 80 is overbought, below 20 oversold; k crossing d gives entry signals, best taken in the direction of the trend.",
  },
  parameters: [
    integer("k_period", 14, "Look-back of the highest high and lowest low"),
    integer("k_smoothing", 3, "SMA period that turns fast %K into slow %K (1 = fast stochastic)"),
    integer("d_period", 3, "SMA period of %D"),
  ],
  outputs: [
    { name: "k", description: "Slow %K in [0, 100]" },
    { name: "d", description: "%D, the SMA of k" },
  ],
  lib_ta: "STOCH",
  usage_notes: [
    "Warm-up: both outputs NaN for the first k_period + k_smoothing + d_period − 3 bars, as in TA-Lib.",
    "A window whose highest high equals its lowest low gives fast %K = 0 (TA-Lib).",
    "Parameters follow TA-Lib order (fastk, slowk, slowd); use k_smoothing = 1 for the fast stochastic.",
  ],
  related_indicators: ["williams_r", "rsi", "donchian_channels"],
  version: VERSION,
};

export const cci: IndicatorMetadata = {
  id: "cci",
  name_cn: "顺势指标",
  name_en: "Commodity Channel Index",
  category: "momentum",
  description: {
    summary: "Distance of the typical price from its average, in units of its mean absolute deviation.",
    formula: "tp = (high + low + close) / 3; CCI = (tp − SMA(tp)) / (0.015 · mean |tp − SMA(tp)|) over `period` bars",
    interpretation: "Readings above +100 mark unusual strength, below −100 unusual weakness; the 0.015 constant puts most values within ±100.",
  },
  parameters: [integer("period", 20, "Window of the average and the mean deviation")],
  outputs: single("CCI (unbounded, mostly within ±200)"),
  lib_ta: "CCI",
  usage_notes: [
    "Warm-up: NaN for the first period − 1 bars.",
    "A flat window (mean deviation below 1e-12 of the mean) reads 0 rather than rounding noise.",
    "The default period is Lambert's 20; TA-Lib's default is 14.",
  ],
  related_indicators: ["rsi", "williams_r", "bollinger_bands"],
  version: VERSION,
};

export const williamsR: IndicatorMetadata = {
  id: "williams_r",
  name_cn: "威廉指标",
  name_en: "Williams %R",
  category: "momentum",
  description: {
    summary: "Where the close sits below the recent highest high, as a percentage of the high-low range.",
    formula: "%R = −100 · (highest high − close) / (highest high − lowest low) over `period` bars",
    interpretation: "Above −20 is overbought, below −80 oversold; it is the fast stochastic shifted down by 100.",
  },
  parameters: [integer("period", 14, "Look-back of the highest high and lowest low")],
  outputs: single("%R in [−100, 0]"),
  lib_ta: "WILLR",
  usage_notes: ["Warm-up: NaN for the first period − 1 bars.", "A flat window reads 0 (TA-Lib)."],
  related_indicators: ["stochastic", "rsi", "cci"],
  version: VERSION,
};

export const roc: IndicatorMetadata = {
  id: "roc",
  name_cn: "变动率指标",
  name_en: "Rate of Change",
  category: "momentum",
  description: {
    summary: "Percentage change of the value over `period` bars.",
    formula: "ROC = (x_t / x_{t−period} − 1) · 100",
    interpretation: "Positive and rising ROC shows accelerating up momentum; zero-line crossings and divergences are the usual signals.",
  },
  parameters: [integer("period", 10, "Number of bars looked back")],
  outputs: single("Change in percent"),
  lib_ta: "ROC",
  usage_notes: ["Warm-up: NaN for the first period bars.", "Reads 0 when the earlier value is 0 (TA-Lib)."],
  related_indicators: ["macd", "rsi"],
  version: VERSION,
};
