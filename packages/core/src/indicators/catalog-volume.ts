/**
 * The indicator catalog's entries for the volume indicators (on-balance volume, VWAP and the money
 * flow index): each entry's description, formula, parameters, outputs and usage notes. catalog.ts
 * lists them, with the other categories', in presentation order.
 */
import type { IndicatorMetadata } from "./metadata";
import { integer, single, VERSION } from "./catalog-parts";
import { OPTIONAL_PERIOD_BOUNDS } from "./parameters";

export const obv: IndicatorMetadata = {
  id: "obv",
  name_cn: "能量潮",
  name_en: "On-Balance Volume",
  category: "volume",
  description: {
    summary: "Running total of volume, added on up closes and subtracted on down closes.",
    formula: "OBV_0 = volume_0; OBV_t = OBV_{t−1} + volume_t if close rose, − volume_t if it fell, unchanged otherwise",
    interpretation: "Rising OBV confirms an up trend; OBV diverging from price warns that the move lacks volume support.",
  },
  parameters: [],
  outputs: single("Cumulative on-balance volume"),
  lib_ta: "OBV",
  usage_notes: [
    "No warm-up: the first bar's OBV is its volume (TA-Lib); libraries that start at 0 differ by that constant.",
    "Only the shape matters; the level depends on where the series starts.",
  ],
  related_indicators: ["vwap", "mfi"],
  version: VERSION,
};

export const vwap: IndicatorMetadata = {
  id: "vwap",
  name_cn: "成交量加权平均价",
  name_en: "Volume Weighted Average Price",
  category: "volume",
  description: {
    summary: "Average typical price weighted by volume, anchored at a session start or over a rolling window.",
    formula: "VWAP = Σ(tp · volume) / Σ volume, tp = (high + low + close) / 3, summed since the anchor (period 0) or over the last `period` bars",
    interpretation: "Institutional benchmark of fair price: trading above VWAP shows buyers in control; intraday pullbacks to VWAP are common entries.",
  },
  parameters: [integer("period", 0, "Rolling window in bars; 0 anchors at the first bar or the last reset", OPTIONAL_PERIOD_BOUNDS)],
  outputs: single("Volume weighted average price"),
  lib_ta: null,
  usage_notes: [
    "Anchored (period 0): defined from the first bar; call reset() on the streaming form at each session open for a session VWAP, or run the batch form per session.",
    "Rolling (period > 0): NaN for the first period − 1 bars.",
    "NaN while the bars counted carry no volume.",
  ],
  related_indicators: ["obv", "mfi", "sma"],
  version: VERSION,
};

export const mfi: IndicatorMetadata = {
  id: "mfi",
  name_cn: "资金流量指数",
  name_en: "Money Flow Index",
  category: "volume",
  description: {
    summary: "A volume-weighted RSI: the share of recent money flow that came on rising typical prices.",
    formula:
      "tp = (high + low + close) / 3; flow = tp · volume, positive when tp rose, negative when it fell; MFI = 100 · Σ positive / (Σ positive + Σ negative) over `period` bars",
    interpretation: "Above 80 overbought, below 20 oversold; divergences between MFI and price flag weakening moves.",
  },
  parameters: [integer("period", 14, "Number of money flows summed")],
  outputs: single("MFI in [0, 100]"),
  lib_ta: "MFI",
  usage_notes: [
    "Warm-up: NaN for the first period bars.",
    "A window without any money flow reads 0; TA-Lib returns 0 whenever the total flow is below 1.0, which this implementation does not copy.",
  ],
  related_indicators: ["rsi", "obv", "vwap"],
  version: VERSION,
};
