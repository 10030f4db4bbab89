import {
  AreaSeries,
  BaselineSeries,
  CandlestickSeries,
  HistogramSeries,
  LineSeries,
  createChart,
  createSeriesMarkers,
  type IChartApi,
  type SeriesMarker,
  type UTCTimestamp,
} from "lightweight-charts";
import type { components } from "@tp/client";
import { h } from "./ui";

export const toTime = (iso: string): UTCTimestamp => Math.floor(Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso) / 1000) as UTCTimestamp;

/** A chart in a labelled box that follows its container's width (1280 wide or a phone's). */
function box(label: string, height: number): { element: HTMLElement; chart: IChartApi } {
  const element = h("figure", { class: "chart", "aria-label": label }, h("figcaption", {}, label));
  const holder = h("div", { style: `height:${height}px` });
  element.append(holder);
  const chart = createChart(holder, { autoSize: true, layout: { attributionLogo: false }, timeScale: { timeVisible: true } });
  // The chart is made before it is on the page (width 0): fit the data once it has its width.
  const sized = new ResizeObserver(() => {
    if (holder.clientWidth === 0) return;
    sized.disconnect();
    requestAnimationFrame(() => chart.timeScale().fitContent());
  });
  sized.observe(holder);
  return { element, chart };
}

/** Sorted, one point per time (the charts refuse repeated or unordered times). */
function series<T extends { time: UTCTimestamp }>(points: T[]): T[] {
  const byTime = new Map<number, T>();
  for (const point of points) byTime.set(point.time, point);
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/** A Monte Carlo's percentiles of equity after a number of trades, dated at that trade's exit (docs/backtests.md "Monte Carlo"). */
export type EquityBand = { date: string; p5: string; p25: string; p50: string; p75: string; p95: string };

/**
 * The equity curve with its drawdown, the benchmark's line when the result has one, and room for a
 * Monte Carlo's bands (`showBands`): the 5–95 and 25–75 percentile bands drawn under the lines.
 */
export function equityChart(
  points: { date: string; equity: string }[],
  benchmark: { symbol: string; equity_curve: { date: string; equity: string }[] } | null = null,
): { element: HTMLElement; showBands(bands: EquityBand[]): void } {
  const { element, chart } = box(benchmark ? `Equity curve and drawdown, against ${benchmark.symbol}` : "Equity curve and drawdown", 320);
  element.dataset.chart = "equity";
  // The bands are areas filled down to the bottom, each painted over the one before (the wide band,
  // the narrow one, the wide one's colour again below it, the background below the 5th percentile):
  // made first, so every line is drawn over them.
  const band = (colour: string) =>
    chart.addSeries(AreaSeries, {
      lineVisible: false,
      topColor: colour,
      bottomColor: colour,
      lastValueVisible: false,
      priceLineVisible: false,
      crosshairMarkerVisible: false,
    });
  const WIDE = "rgba(37,99,235,0.12)";
  const bands = [
    { key: "p95", series: band(WIDE) },
    { key: "p75", series: band("rgba(37,99,235,0.26)") },
    { key: "p25", series: band(WIDE) },
    { key: "p5", series: band("#ffffff") },
  ] as const;
  const equity = series(points.map((point) => ({ time: toTime(point.date), value: Number(point.equity) })));
  chart.addSeries(LineSeries, { color: "#2563eb", lineWidth: 2, title: "Equity" }).setData(equity);
  if (benchmark) {
    element.dataset.benchmark = benchmark.symbol;
    chart
      .addSeries(LineSeries, { color: "#64748b", lineWidth: 2, lineStyle: 2, title: benchmark.symbol })
      .setData(series(benchmark.equity_curve.map((point) => ({ time: toTime(point.date), value: Number(point.equity) }))));
  }
  let peak = -Infinity;
  const drawdown = equity.map((point) => {
    peak = Math.max(peak, point.value);
    return { time: point.time, value: peak > 0 ? ((point.value - peak) / peak) * 100 : 0 };
  });
  // The drawdown has an axis of its own, on the left, in percent: never read on the equity's price axis.
  chart.applyOptions({ leftPriceScale: { visible: true, borderVisible: true } });
  chart
    .addSeries(AreaSeries, {
      priceScaleId: "left",
      priceFormat: { type: "custom", formatter: (value: number) => `${value.toFixed(1)}%`, minMove: 0.01 },
      lineColor: "#dc2626",
      topColor: "rgba(220,38,38,0.05)",
      bottomColor: "rgba(220,38,38,0.35)",
      title: "Drawdown %",
    })
    .setData(drawdown);
  // Equity above on the right axis, the drawdown in the bottom quarter on the left one: the two do not overlap.
  chart.priceScale("right").applyOptions({ scaleMargins: { top: 0.05, bottom: 0.3 } });
  chart.priceScale("left").applyOptions({ scaleMargins: { top: 0.75, bottom: 0 } });
  chart.timeScale().fitContent();
  return {
    element,
    showBands(points) {
      for (const { key, series: area } of bands) area.setData(series(points.map((point) => ({ time: toTime(point.date), value: Number(point[key]) }))));
      element.dataset.bands = String(points.length);
      chart.timeScale().fitContent();
    },
  };
}

/** Colours of the compared runs, in order (the metrics table's columns carry the same). */
export const RUN_COLOURS = ["#2563eb", "#ea580c"] as const;

/** Several equity curves on one chart, one line each, each titled with its label. */
export function comparisonChart(curves: { label: string; points: { date: string; equity: string }[] }[]): HTMLElement {
  const { element, chart } = box("Equity curves", 320);
  element.dataset.chart = "comparison";
  curves.forEach((curve, index) => {
    chart
      .addSeries(LineSeries, { color: RUN_COLOURS[index % RUN_COLOURS.length], lineWidth: 2, title: curve.label })
      .setData(series(curve.points.map((point) => ({ time: toTime(point.date), value: Number(point.equity) }))));
  });
  chart.timeScale().fitContent();
  return element;
}

/** A stored candle as the candle API answers it (`timestamp` in UNIX seconds, UTC). */
export type Candle = Pick<components["schemas"]["StockData"], "timestamp" | "open" | "high" | "low" | "close" | "volume">;

/** Candles with volume below them, and markers (fills) on the candles. */
export function candleChart(label: string, candles: Candle[], markers: { time: string; side: "buy" | "sell"; text: string }[] = []): HTMLElement {
  const { element, chart } = box(label, 360);
  element.dataset.chart = "candles";
  const prices = chart.addSeries(CandlestickSeries, {
    upColor: "#16a34a",
    downColor: "#dc2626",
    wickUpColor: "#16a34a",
    wickDownColor: "#dc2626",
    borderVisible: false,
  });
  prices.setData(series(candles.map((c) => ({ time: c.timestamp as UTCTimestamp, open: c.open, high: c.high, low: c.low, close: c.close }))));
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: "volume", priceFormat: { type: "volume" }, color: "#94a3b8" });
  volume.setData(series(candles.map((c) => ({ time: c.timestamp as UTCTimestamp, value: c.volume, color: c.close >= c.open ? "#86efac" : "#fca5a5" }))));
  chart.priceScale("volume").applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  if (markers.length > 0) {
    const times = candles.map((c) => c.timestamp as UTCTimestamp).sort((a, b) => a - b);
    // A marker sits on a bar: a fill's time is placed on the bar it happened in.
    const onBar = (time: UTCTimestamp) => times.filter((t) => t <= time).at(-1) ?? times[0]!;
    const placed: SeriesMarker<UTCTimestamp>[] = markers
      .map((marker) => ({
        time: onBar(toTime(marker.time)),
        position: marker.side === "buy" ? ("belowBar" as const) : ("aboveBar" as const),
        color: marker.side === "buy" ? "#16a34a" : "#dc2626",
        shape: marker.side === "buy" ? ("arrowUp" as const) : ("arrowDown" as const),
        text: marker.text,
      }))
      .sort((a, b) => a.time - b.time);
    if (times.length > 0) createSeriesMarkers(prices, placed);
  }
  chart.timeScale().fitContent();
  return element;
}

/** A point of a live session's equity: when (epoch seconds) and the equity and P&L then. */
export type EquityPoint = { time: UTCTimestamp; equity: number; pnl: number };

/**
 * A live session's equity (right axis) and total P&L (left axis, a baseline at zero) over time,
 * growing as points come (`add`): the session page feeds it from the session's socket.
 */
export function liveEquityChart(currency: string): { element: HTMLElement; add(points: EquityPoint[]): void; size(): number } {
  const { element, chart } = box(`Equity and P&L (${currency})`, 280);
  element.dataset.chart = "session-equity";
  chart.applyOptions({ leftPriceScale: { visible: true, borderVisible: true } });
  const equity = chart.addSeries(LineSeries, { color: "#2563eb", lineWidth: 2, title: "Equity" });
  const pnl = chart.addSeries(BaselineSeries, {
    priceScaleId: "left",
    baseValue: { type: "price", price: 0 },
    topLineColor: "#16a34a",
    bottomLineColor: "#dc2626",
    topFillColor1: "rgba(22,163,74,0.2)",
    topFillColor2: "rgba(22,163,74,0.02)",
    bottomFillColor1: "rgba(220,38,38,0.02)",
    bottomFillColor2: "rgba(220,38,38,0.2)",
    title: "P&L",
  });
  const byTime = new Map<number, EquityPoint>();
  return {
    element,
    add(points) {
      for (const point of points) byTime.set(point.time, point);
      const all = [...byTime.values()].sort((a, b) => a.time - b.time);
      equity.setData(all.map((p) => ({ time: p.time, value: p.equity })));
      pnl.setData(all.map((p) => ({ time: p.time, value: p.pnl })));
      chart.timeScale().fitContent();
      element.dataset.points = String(all.length);
    },
    size: () => byTime.size,
  };
}
