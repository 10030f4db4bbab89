import { api, go, href, unwrap } from "../app";
import { comparisonChart, RUN_COLOURS } from "../charts";
import { type BacktestResult, difference, METRICS, shown } from "../metrics";
import { FieldProblems, field, fields, h, onSubmit, statusLine, when } from "../ui";

const RECENT_KEY = "tp-console-backtests";
/** A remembered backtest: its session and how it ended when it was last seen (older entries have neither). */
type Recent = { id: string; label: string; at: string; session_id?: string; status?: string };

/**
 * The backtests this browser started or opened, newest first, across sessions (the API lists a
 * session's backtests, not a user's): what the comparison offers. Kept in `localStorage`, at most 20.
 */
export function recentBacktests(): Recent[] {
  try {
    const stored = JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]") as unknown;
    return Array.isArray(stored) ? (stored as Recent[]).filter((entry) => typeof entry?.id === "string") : [];
  } catch {
    return [];
  }
}

export function rememberBacktest(id: string, label: string, about: { session_id?: string; status?: string } = {}): void {
  const known = recentBacktests().find((entry) => entry.id === id);
  const entry = { ...known, id, label, at: new Date().toISOString(), ...about };
  const entries = [entry, ...recentBacktests().filter((other) => other.id !== id)].slice(0, 20);
  localStorage.setItem(RECENT_KEY, JSON.stringify(entries));
}

/** A run's short name: its strategy, symbols and period. */
export const runLabel = (result: Pick<BacktestResult, "strategy_name" | "symbols" | "start_date" | "end_date">): string =>
  `${result.strategy_name} on ${result.symbols.join(", ")}, ${result.start_date} to ${result.end_date}`;

/** The two backtests to compare, by id, offering the recent ones; submitting opens their comparison. */
function compareForm(ids: string[]): HTMLFormElement {
  const status = statusLine();
  const recent = recentBacktests();
  const choices = h(
    "datalist",
    { id: "recent-backtests" },
    recent.map((entry) => h("option", { value: entry.id }, `${entry.label} · ${when(entry.at)}`)),
  );
  const first = h("input", { name: "first", list: choices.id, value: ids[0] ?? recent[1]?.id ?? "", autocomplete: "off" });
  const second = h("input", { name: "second", list: choices.id, value: ids[1] ?? recent[0]?.id ?? "", autocomplete: "off" });
  const form = h(
    "form",
    { class: "card", "aria-label": "Backtests to compare", novalidate: true },
    fields(field("First backtest", first, "Its id; recent ones are offered"), field("Second backtest", second, "Its id; recent ones are offered")),
    choices,
    h("button", { type: "submit" }, "Compare"),
    status,
  );
  onSubmit(form, status, async () => {
    const problems: [string, string][] = [];
    if (!first.value.trim()) problems.push(["first", "a backtest id"]);
    if (!second.value.trim()) problems.push(["second", "a backtest id"]);
    if (problems.length > 0) throw new FieldProblems(problems);
    go(`/backtests/compare?ids=${[first.value, second.value].map((id) => encodeURIComponent(id.trim())).join(",")}`);
  });
  return form;
}

/** /console/backtests/compare?ids=a,b: both equity curves on one chart, the metrics side by side with the differences. */
export async function comparePage(main: HTMLElement): Promise<void> {
  const ids = (new URLSearchParams(location.search).get("ids") ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean)
    .slice(0, 2);
  const status = statusLine();
  main.append(h("h1", {}, "Compare backtests"), compareForm(ids), status);
  if (ids.length < 2) return status.say("Choose two backtests.");
  const results = await Promise.all(
    ids.map((id) =>
      api
        .GET("/api/v1/backtest/{backtest_id}/result", { params: { path: { backtest_id: id } } })
        .then(unwrap)
        .catch((error: unknown) => {
          status.fail(error);
          return undefined;
        }),
    ),
  );
  if (results.some((result) => !result)) return;
  const [a, b] = results as [BacktestResult, BacktestResult];
  const heading = (result: BacktestResult, index: number) =>
    h(
      "th",
      { scope: "col" },
      h("span", { class: "swatch", style: `background:${RUN_COLOURS[index]}` }),
      " ",
      h("a", { href: href(`/backtests/${encodeURIComponent(result.backtest_id)}`) }, result.backtest_id),
    );
  main.append(
    h(
      "ul",
      { class: "runs" },
      [a, b].map((result, index) =>
        h(
          "li",
          {},
          h("span", { class: "swatch", style: `background:${RUN_COLOURS[index]}` }),
          ` ${result.backtest_id}: ${runLabel(result)} · ${result.status}`,
        ),
      ),
    ),
    comparisonChart([a, b].map((result) => ({ label: result.backtest_id, points: result.equity_curve }))),
    h(
      "table",
      { "data-table": "comparison" },
      h("caption", {}, "Metrics side by side (difference: second less first)"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Metric"), heading(a, 0), heading(b, 1), h("th", { scope: "col" }, "Difference"))),
      h(
        "tbody",
        {},
        METRICS.map((metric) =>
          h(
            "tr",
            { "data-metric": metric.label },
            h("th", { scope: "row" }, metric.label),
            h("td", {}, shown(metric.kind, metric.of(a))),
            h("td", {}, shown(metric.kind, metric.of(b))),
            h("td", {}, difference(metric.kind, metric.of(a), metric.of(b))),
          ),
        ),
      ),
    ),
  );
}
