import type { components } from "@tp/client";
import { api, go, href, unwrap } from "../app";
import { currencyOfSymbol, money, percent } from "../format";
import { field, h, num, onSubmit, statusLine, table, when } from "../ui";
import { walkForwardSection } from "./walk-forward";

type SweepResult = components["schemas"]["SweepResult"];
type SweepProgress = components["schemas"]["SweepProgress"];
type Ranked = SweepResult["ranking"][number];

const RECENT_KEY = "tp-console-sweeps";
type Recent = { id: string; label: string; at: string };

/** The sweeps this browser opened, newest first (the API lists no sweeps: one is reached by its id). */
export function recentSweeps(): Recent[] {
  try {
    const stored = JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]") as unknown;
    return Array.isArray(stored) ? (stored as Recent[]).filter((entry) => typeof entry?.id === "string") : [];
  } catch {
    return [];
  }
}

function rememberSweep(id: string, label: string): void {
  const entries = [{ id, label, at: new Date().toISOString() }, ...recentSweeps().filter((entry) => entry.id !== id)].slice(0, 20);
  localStorage.setItem(RECENT_KEY, JSON.stringify(entries));
}

/** /console/sweeps: open a sweep by its id (`POST /backtest/sweeps` answers it), or one opened before. */
export function sweepsPage(main: HTMLElement): void {
  const status = statusLine();
  const id = h("input", { name: "sweep_id", required: true, placeholder: "the id POST /api/v1/backtest/sweeps answered" });
  const form = h(
    "form",
    { class: "card", "aria-label": "Open a sweep", novalidate: true },
    h("h2", {}, "Open a sweep"),
    field("Sweep id", id),
    h("button", { type: "submit" }, "Open"),
    status,
  );
  onSubmit(form, status, async () => {
    if (!id.value.trim()) throw new Error("Give the sweep's id.");
    go(`/sweeps/${encodeURIComponent(id.value.trim())}`);
  });
  const recent = recentSweeps();
  main.append(
    h("h1", {}, "Parameter sweeps"),
    form,
    recent.length > 0
      ? table(
          ["Sweep", "What", "Opened"],
          recent.map((entry) => [h("a", { href: href(`/sweeps/${encodeURIComponent(entry.id)}`) }, entry.id), entry.label, when(entry.at)]),
          "Sweeps opened in this browser",
        )
      : h("p", { class: "muted" }, "No sweep opened in this browser yet."),
  );
}

/** A parameter value as shown. */
const shownValue = (value: unknown): string => (typeof value === "number" ? String(value) : String(value ?? "–"));

/** The parameters whose values differ between runs, each with its values in order. */
function varying(ranking: Ranked[]): [string, unknown[]][] {
  const values = new Map<string, Map<string, unknown>>();
  for (const run of ranking)
    for (const [name, value] of Object.entries(run.parameters)) {
      const seen = values.get(name) ?? new Map<string, unknown>();
      seen.set(JSON.stringify(value), value);
      values.set(name, seen);
    }
  const sorted = (list: unknown[]) => [...list].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b))));
  return [...values.entries()].filter(([, seen]) => seen.size > 1).map(([name, seen]) => [name, sorted([...seen.values()])]);
}

/**
 * The metric over two varying parameters (rows the first, columns the second; one row when only
 * one varies): each cell the best run with those values (the others' values at their best), its
 * colour from worst (red) to best (green), linked to its backtest.
 */
export function heatMap(result: SweepResult): HTMLElement {
  const axes = varying(result.ranking);
  const figure = h("figure", { class: "sweep-heatmap", "data-chart": "sweep-heatmap", "aria-label": "Parameter heat map" });
  if (axes.length === 0 || result.ranking.length === 0) {
    figure.append(h("figcaption", {}, "Parameter heat map: the runs do not differ in any parameter yet."));
    return figure;
  }
  const [rows, columns] = [axes[0]!, axes[1] ?? (["", [undefined]] as [string, unknown[]])];
  const descending = result.order !== "ascending";
  const better = (a: number | null, b: number | null) => (b === null ? a !== null : a !== null && (descending ? a > b : a < b));
  const values = result.ranking.map((run) => run.value).filter((value): value is number => value !== null);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const colour = (value: number | null) => {
    if (value === null || values.length === 0) return "#e5e7eb";
    const share = high === low ? 1 : (value - low) / (high - low);
    const good = descending ? share : 1 - share;
    return `hsl(${Math.round(good * 120)}, 70%, 80%)`;
  };
  const best = (row: unknown, column: unknown): Ranked | undefined => {
    let found: Ranked | undefined;
    for (const run of result.ranking) {
      if (JSON.stringify(run.parameters[rows[0]]) !== JSON.stringify(row)) continue;
      if (columns[0] && JSON.stringify(run.parameters[columns[0]]) !== JSON.stringify(column)) continue;
      if (!found || better(run.value, found.value)) found = run;
    }
    return found;
  };
  figure.append(
    h("figcaption", {}, `${result.metric.replace(/_/g, " ")} by ${rows[0]}${columns[0] ? ` (rows) and ${columns[0]} (columns)` : ""}: greener is better`),
    h(
      "table",
      { class: "heatmap-grid" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, columns[0] ? `${rows[0]} \\ ${columns[0]}` : rows[0]),
          columns[1].map((column) => h("th", { scope: "col" }, columns[0] ? shownValue(column) : result.metric.replace(/_/g, " "))),
        ),
      ),
      h(
        "tbody",
        {},
        rows[1].map((row) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, shownValue(row)),
            columns[1].map((column) => {
              const run = best(row, column);
              if (!run) return h("td", { class: "empty" }, "–");
              return h(
                "td",
                { style: `background:${colour(run.value)}`, "data-value": run.value === null ? "" : String(run.value), title: `rank ${run.rank}` },
                // A walk-forward's in-sample points other than each window's best ran in process: no backtest to open.
                run.stored
                  ? h("a", { href: href(`/backtests/${encodeURIComponent(run.backtest_id)}`) }, run.value === null ? "–" : num(run.value, 3))
                  : run.value === null
                    ? "–"
                    : num(run.value, 3),
              );
            }),
          ),
        ),
      ),
    ),
  );
  return figure;
}

/** A walk-forward's heat map: one window's grid at a time (the last by default), chosen from a list. */
function windowHeatMap(result: SweepResult, windows: number): HTMLElement {
  const holder = h("div", { "data-chart": "walk-forward-heatmap" });
  const choice = h(
    "select",
    { name: "heatmap_window", "aria-label": "Window of the heat map" },
    Array.from({ length: windows }, (_, k) => h("option", { value: String(k) }, `Window ${k + 1} in sample`)),
  );
  const draw = () => {
    const k = Number(choice.value);
    holder.replaceChildren(choice, heatMap({ ...result, ranking: result.ranking.filter((run) => run.window === k) }));
  };
  choice.value = String(windows - 1);
  choice.addEventListener("change", draw);
  draw();
  return holder;
}

/**
 * /console/sweeps/{sweep_id}: the sweep's progress, then its ranking (each run linked to its
 * backtest) and the parameter heat map; a walk-forward's windows, stitched curve and heat map by
 * window first (walk-forward.ts).
 */
export async function sweepPage(main: HTMLElement, params: Record<string, string>): Promise<() => void> {
  const id = params.sweep_id!;
  const path = { params: { path: { sweep_id: id } } };
  const status = statusLine();
  const progressLine = h("p", { "data-field": "sweep-progress" });
  const body = h("div", {});
  const heading = h("h1", {}, "Parameter sweep");
  main.append(heading, progressLine, status, body);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let left = false;
  const show = async () => {
    try {
      const progress = unwrap(await api.GET("/api/v1/backtest/sweeps/{sweep_id}", path)) as SweepProgress;
      progressLine.textContent = `${progress.status} · ${progress.stage.replace(/_/g, " ")} · ${progress.runs_done} of ${progress.runs_total} runs done${progress.runs_failed ? `, ${progress.runs_failed} failed` : ""}${progress.out_of_sample_total > 0 ? ` · ${progress.out_of_sample_done} of ${progress.out_of_sample_total} out of sample` : ""} · ${progress.progress.toFixed(0)}%`;
      const result = unwrap(await api.GET("/api/v1/backtest/sweeps/{sweep_id}/result", path)) as SweepResult;
      render(result);
      if (progress.is_running && !left) timer = setTimeout(() => void show(), 2000);
    } catch (error) {
      status.fail(error);
    }
  };
  const render = (result: SweepResult) => {
    const label = `${result.strategy_name} on ${result.symbols.join(", ")}, ${result.start_date} to ${result.end_date}`;
    rememberSweep(id, label);
    const currency = currencyOfSymbol(result.symbols[0]);
    const names = [...new Set(result.ranking.flatMap((run) => Object.keys(run.parameters)))];
    const walkForward = result.walk_forward;
    heading.textContent = walkForward ? "Walk-forward optimisation" : "Parameter sweep";
    body.replaceChildren(
      ...(walkForward ? [walkForwardSection(result, walkForward)] : []),
      h(
        "p",
        { class: "muted" },
        `${label} · ranked by ${result.metric.replace(/_/g, " ")} (${result.order}) · ${result.ranking.length} of ${result.runs_total} runs ranked`,
      ),
      walkForward ? windowHeatMap(result, walkForward.windows.length) : heatMap(result),
      h(
        "div",
        { "data-table": "ranking" },
        table(
          [
            ...(walkForward ? ["Window"] : []),
            "Rank",
            ...names,
            result.metric.replace(/_/g, " "),
            "Total return",
            "Total P&L",
            "Max drawdown",
            "Trades",
            "Out of sample",
            "Backtest",
          ],
          result.ranking.map((run) => [
            ...(walkForward ? [String((run.window ?? 0) + 1)] : []),
            String(run.rank),
            ...names.map((name) => shownValue(run.parameters[name])),
            run.value === null ? "–" : num(run.value, 4),
            percent(run.performance_metrics?.total_return),
            money(run.performance_metrics?.total_pnl, currency),
            percent(run.performance_metrics?.max_drawdown),
            String(run.performance_metrics?.total_trades ?? "–"),
            run.out_of_sample ? `${run.out_of_sample.status}${run.out_of_sample.value === null ? "" : ` · ${num(run.out_of_sample.value, 4)}`}` : "–",
            run.stored ? h("a", { href: href(`/backtests/${encodeURIComponent(run.backtest_id)}`), "data-run": run.backtest_id }, "open") : "in process",
          ]),
          `Ranking (${result.ranking.length})`,
        ),
      ),
    );
  };
  await show();
  return () => {
    left = true;
    clearTimeout(timer);
  };
}
