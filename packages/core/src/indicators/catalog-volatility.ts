/**
 * The indicator catalog's entries for the volatility indicators (Bollinger Bands, ATR, Keltner
 * Channels and Donchian Channels): each entry's description, formula, parameters, outputs and usage
 * notes. catalog.ts lists them, with the other categories', in presentation order.
 */
import type { IndicatorMetadata } from "./metadata";
import { bands, integer, number, single, VERSION } from "./catalog-parts";
import { MULTIPLIER_BOUNDS } from "./parameters";

export const bollingerBands: IndicatorMetadata = {
  id: "bollinger_bands",
  name_cn: "布林带",
  name_en: "Bollinger Bands",
  category: "volatility",
  description: {
    summary: "An SMA with bands a number of standard deviations above and below it.",
    formula: "middle = SMA(period); σ = population standard deviation of the same window; upper/lower = middle ± std_dev · σ",
    interpretation: "Narrow bands (a squeeze) precede volatility expansions; closes outside the bands signal strong moves or, in ranges, likely reversals.",
  },
  parameters: [
    integer("period", 20, "Window of the SMA and the standard deviation"),
    number("std_dev", 2, "Band width in standard deviations", MULTIPLIER_BOUNDS),
  ],
  outputs: bands("middle + std_dev · σ", "SMA of the window", "middle − std_dev · σ"),
  lib_ta: "BBANDS",
  usage_notes: [
    "Warm-up: NaN for the first period − 1 bars.",
    "Population standard deviation (divides by period), as TA-Lib and Bollinger define it.",
    "The middle line equals the SMA indicator exactly.",
  ],
  related_indicators: ["sma", "keltner_channels", "donchian_channels", "atr"],
  version: VERSION,
};

export const atr: IndicatorMetadata = {
  id: "atr",
  name_cn: "平均真实波幅",
  name_en: "Average True Range",
  category: "volatility",
  description: {
    summary: "Wilder's average of the true range, the bar's range extended to the previous close.",
    formula:
      "TR = max(high − low, |high − prev close|, |low − prev close|); ATR seeded with the mean of TR over bars 1..period, then ATR = (ATR · (period − 1) + TR) / period",
    interpretation: "Measures volatility in price units; used to size positions and to place stops a multiple of ATR away.",
  },
  parameters: [integer("period", 14, "Wilder smoothing period")],
  outputs: single("Average true range in price units"),
  lib_ta: "ATR",
  usage_notes: [
    "Warm-up: NaN for the first period bars; the first bar has no previous close and contributes no true range (TA-Lib).",
    "Libraries that count the first bar's high − low as a true range start one bar earlier and converge after a few hundred bars.",
  ],
  related_indicators: ["keltner_channels", "supertrend", "adx", "bollinger_bands"],
  version: VERSION,
};

export const keltnerChannels: IndicatorMetadata = {
  id: "keltner_channels",
  name_cn: "肯特纳通道",
  name_en: "Keltner Channels",
  category: "volatility",
  description: {
    summary: "An EMA of the close with bands a multiple of the ATR above and below it.",
    formula: "middle = EMA(close, period); upper/lower = middle ± multiplier · ATR(atr_period)",
    interpretation: "Closes outside the channel signal trend strength; Bollinger Bands inside the Keltner Channels mark a volatility squeeze.",
  },
  parameters: [
    integer("period", 20, "EMA period of the middle line"),
    number("multiplier", 2, "Band width in ATRs", MULTIPLIER_BOUNDS),
    integer("atr_period", 10, "ATR period"),
  ],
  outputs: bands("middle + multiplier · ATR", "EMA of the close", "middle − multiplier · ATR"),
  lib_ta: null,
  usage_notes: [
    "Warm-up: all lines NaN for the first max(period − 1, atr_period) bars.",
    "This is the modern (Raschke, StockCharts) form; Keltner's original used a 10-bar SMA of the typical price and the average high − low range.",
  ],
  related_indicators: ["bollinger_bands", "atr", "ema", "donchian_channels"],
  version: VERSION,
};

export const donchianChannels: IndicatorMetadata = {
  id: "donchian_channels",
  name_cn: "唐奇安通道",
  name_en: "Donchian Channels",
  category: "volatility",
  description: {
    summary: "Highest high and lowest low of the last `period` bars, with their midpoint.",
    formula: "upper = max(high, period); lower = min(low, period); middle = (upper + lower) / 2",
    interpretation: "A close beyond the previous bar's channel is the classic breakout (Turtle) entry; the width measures the recent range.",
  },
  parameters: [integer("period", 20, "Look-back in bars, including the current bar")],
  outputs: bands("Highest high", "Midpoint of upper and lower", "Lowest low"),
  lib_ta: null,
  usage_notes: [
    "Warm-up: NaN for the first period − 1 bars.",
    "The channel includes the current bar, so the current high can never break above it; compare with the previous bar's channel for breakouts.",
  ],
  related_indicators: ["keltner_channels", "bollinger_bands", "stochastic"],
  version: VERSION,
};
