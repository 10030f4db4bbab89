import type { components } from "@tp/client";
import { href } from "../app";
import { comparisonChart } from "../charts";
import { currencyOfSymbol, percent } from "../format";
import { h, num, table } from "../ui";

type SweepResult = components["schemas"]["SweepResult"];
type Range = { start_date: string; end_date: string; trading_days: number };

/** A sweep's walk-forward part (docs/backtests.md "Walk-forward"). */
export type WalkForward = NonNullable<SweepResult["walk_forward"]>;

const day = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** The windows on one time axis: per window its in-sample bar, then its out-of-sample bar. */
function timeline(walkForward: WalkForward): HTMLElement {
  const from = Math.min(...walkForward.windows.map((w) => day(w.in_sample.start_date)));
  const to = Math.max(...walkForward.windows.map((w) => day(w.out_of_sample.end_date))) + 86_400_000;
  const at = (date: string) => ((day(date) - from) / (to - from)) * 100;
  const bar = (part: "in_sample" | "out_of_sample", range: Range, window: number) =>
    h(
      "span",
      {
        class: `walk-forward-bar ${part}`,
        "data-part": part,
        "data-window": String(window),
        title: `${part === "in_sample" ? "In sample" : "Out of sample"}: ${range.start_date} to ${range.end_date}, ${range.trading_days} trading days`,
        style: `position:absolute;top:0;height:100%;left:${at(range.start_date).toFixed(2)}%;width:${Math.max(0.3, at(range.end_date) - at(range.start_date) + (86_400_000 / (to - from)) * 100).toFixed(2)}%;background:${part === "in_sample" ? "#93c5fd" : "#fb923c"}`,
      },
      "",
    );
  return h(
    "figure",
    { class: "walk-forward-timeline", "data-chart": "walk-forward-timeline", "aria-label": "Walk-forward windows" },
    h(
      "figcaption",
      {},
      `Windows: in sample (blue) then out of sample (orange), ${walkForward.windows[0]!.in_sample.start_date} to ${walkForward.windows.at(-1)!.out_of_sample.end_date}`,
    ),
    walkForward.windows.map((w) =>
      h(
        "div",
        { class: "walk-forward-row", style: "display:flex;align-items:center;gap:0.5rem;margin:2px 0" },
        h("span", { style: "width:5rem;font-size:0.85em" }, `Window ${w.window + 1}`),
        h(
          "span",
          { style: "position:relative;flex:1;height:14px;background:#f3f4f6" },
          bar("in_sample", w.in_sample, w.window),
          bar("out_of_sample", w.out_of_sample, w.window),
        ),
      ),
    ),
  );
}

/**
 * The in-sample pace beside the stitched curve: each window's stretch compounds its best point's
 * in-sample annualised return from where the pace stood (the trading days elapsed estimated from
 * the dates), so the gap between the lines is what the out-of-sample runs fell short of (or beat).
 */
function inSamplePace(walkForward: WalkForward, initial: number, perYear: number): { date: string; equity: string }[] {
  const curve = walkForward.stitched?.equity_curve ?? [];
  const out: { date: string; equity: string }[] = [];
  let level = initial;
  for (const w of walkForward.windows) {
    const points = curve.filter((point) => point.window === w.window);
    if (points.length === 0) continue;
    const rate = w.best?.annualized_return ?? 0;
    const span = Math.max(1, day(w.out_of_sample.end_date) - day(w.out_of_sample.start_date));
    const elapsed = (date: string) => (((day(date) - day(w.out_of_sample.start_date)) / span) * (w.out_of_sample.trading_days - 1) + 1) / perYear;
    for (const point of points) out.push({ date: point.date, equity: (level * (1 + rate) ** elapsed(point.date)).toFixed(2) });
    level *= (1 + rate) ** (w.out_of_sample.trading_days / perYear);
  }
  return out;
}

/**
 * A walk-forward's part of the sweep page: the windows as a timeline, the stitched out-of-sample
 * equity against the in-sample pace, the figures and the windows' table (each best point's
 * in-sample run and its out-of-sample run linked).
 */
export function walkForwardSection(result: SweepResult, walkForward: WalkForward): HTMLElement {
  const perYear = currencyOfSymbol(result.symbols[0]) === "HKD" ? 247 : 252;
  const metric = result.metric.replace(/_/g, " ");
  const stitched = walkForward.stitched;
  return h(
    "section",
    { "data-section": "walk-forward", "aria-label": "Walk-forward" },
    h("h2", {}, "Walk-forward"),
    h(
      "p",
      { "data-field": "walk-forward-efficiency" },
      `Efficiency ${num(walkForward.efficiency, 2)} · out of sample ${percent(walkForward.out_of_sample_annualized_return)} a year (stitched), in sample ${percent(walkForward.in_sample_annualized_return)} a year (mean of the windows' best)${stitched ? ` · stitched total return ${percent(stitched.total_return)}, max drawdown ${percent(stitched.max_drawdown)}` : ""}`,
    ),
    timeline(walkForward),
    stitched
      ? h(
          "div",
          { "data-chart": "walk-forward-equity" },
          comparisonChart([
            { label: "Out of sample, stitched", points: stitched.equity_curve },
            { label: "In-sample pace", points: inSamplePace(walkForward, Number(stitched.initial_equity), perYear) },
          ]),
        )
      : h("p", { class: "muted" }, "No out-of-sample run completed yet: no stitched curve."),
    h(
      "div",
      { "data-table": "walk-forward-windows" },
      table(
        ["Window", "In sample", "Out of sample", "Best point", "Metric in", "Metric out", "Return out", "Runs"],
        walkForward.windows.map((w) => [
          String(w.window + 1),
          `${w.in_sample.start_date} to ${w.in_sample.end_date}`,
          `${w.out_of_sample.start_date} to ${w.out_of_sample.end_date}`,
          w.best
            ? h(
                "a",
                { href: href(`/backtests/${encodeURIComponent(w.best.backtest_id)}`) },
                Object.entries(w.best.parameters)
                  .map(([name, value]) => `${name} ${String(value)}`)
                  .join(", "),
              )
            : "–",
          num(w.best?.value, 4),
          w.out_of_sample_run ? `${w.out_of_sample_run.status}${w.out_of_sample_run.value === null ? "" : ` · ${num(w.out_of_sample_run.value, 4)}`}` : "–",
          w.out_of_sample_run
            ? h(
                "a",
                { href: href(`/backtests/${encodeURIComponent(w.out_of_sample_run.backtest_id)}`), "data-run": w.out_of_sample_run.backtest_id },
                percent(w.out_of_sample_run.performance_metrics?.total_return),
              )
            : "–",
          String(w.in_sample_runs),
        ]),
        `Windows (${walkForward.windows.length}): ${metric} in sample (the best point's) and out of sample`,
      ),
    ),
  );
}
