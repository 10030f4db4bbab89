import type { SymbolLogStream } from "@tp/client";
import { api, client, go, unwrap } from "../app";
import { candleChart } from "../charts";
import { field, fields, h, statusLine } from "../ui";
import { loadCandles } from "./backtests";

const PERIODS = ["1m", "5m", "1h", "1d"] as const;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** /console/symbols/{symbol}: candles with volume, import with live progress, the coverage heat map, import the missing days. */
export async function symbolPage(main: HTMLElement, params: Record<string, string>): Promise<() => void> {
  const symbol = (params.symbol ?? "AAPL.US").toUpperCase();
  const status = statusLine();
  const code = h("input", { name: "symbol", value: symbol, required: true });
  const period = h(
    "select",
    { name: "period" },
    PERIODS.map((p) => h("option", { value: p, selected: p === "1d" }, p)),
  );
  const end = h("input", { name: "end_date", type: "date", value: "2024-06-28" });
  const start = h("input", { name: "start_date", type: "date", value: "2024-01-02" });
  const form = h(
    "form",
    { class: "card", "aria-label": "Symbol and range" },
    fields(field("Symbol", code), field("Period", period), field("Start date", start), field("End date", end)),
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit" }, "Show"),
      h("button", { type: "button", id: "import" }, "Import this range"),
      h("button", { type: "button", id: "import-missing" }, "Import the missing days"),
    ),
  );
  const progress = h("progress", { max: 100, value: 0, "aria-label": "Import progress" });
  const progressText = h("span", { role: "status" });
  const chartBox = h("div", {});
  const heat = h("section", { "aria-label": "Coverage" });
  main.append(h("h1", {}, `Market data: ${symbol}`), form, h("p", {}, progress, " ", progressText), status, chartBox, heat);

  let logs: SymbolLogStream | undefined;
  const follow = () => {
    logs?.close();
    logs = client.followSymbolLogs(symbol, {
      onMessage: (message) => {
        if (message.type === "import_progress") {
          const data = message.data as { progress: number; status: string; message?: string };
          progress.value = data.progress;
          progressText.textContent = `${data.status} · ${data.progress}%${data.message ? ` · ${data.message}` : ""}`;
          if (data.status === "completed") void show();
        }
      },
    });
  };

  async function show(): Promise<void> {
    status.say("Loading…");
    try {
      const candles = await loadCandles(symbol, period.value, start.value, end.value);
      chartBox.replaceChildren(
        candles.length
          ? candleChart(`${symbol} ${period.value} candles and volume`, candles)
          : h("p", { class: "muted" }, "No candles stored for this range: import them."),
      );
      const range = { start_date: start.value, end_date: end.value };
      let calendar = unwrap(await api.GET("/api/v1/stock-calendar/{symbol}", { params: { path: { symbol }, query: range } }));
      if (calendar.entries.length === 0) {
        // The range's calendar is not settled yet: settle it (the exchange's trading days and holidays), then read it.
        unwrap(await api.POST("/api/v1/stock-calendar/{symbol}/init", { params: { path: { symbol } }, body: range }));
        calendar = unwrap(await api.GET("/api/v1/stock-calendar/{symbol}", { params: { path: { symbol }, query: range } }));
      }
      const missing = unwrap(
        await api.GET("/api/v1/stock-calendar/{symbol}/missing", {
          params: { path: { symbol }, query: { period: period.value as "1d", start_date: start.value, end_date: end.value } },
        }),
      );
      const missingDays = new Set(missing.missing_dates);
      // A trading day is ready when its period's bars are stored (the calendar's readiness, or a candle
      // on or after it), missing when the missing-dates check says so, and upcoming while its session has not ended.
      const lastCandle = candles.length ? isoDay(new Date(candles.at(-1)!.timestamp * 1000)) : "";
      const kindOf = (entry: (typeof calendar.entries)[number]) =>
        !entry.is_trading_day
          ? "holiday"
          : missingDays.has(entry.date)
            ? "missing"
            : entry.data_readiness?.[period.value]?.ready || entry.date <= lastCandle
              ? "ready"
              : "upcoming";
      const kinds = calendar.entries.map(kindOf);
      heat.replaceChildren(
        h("h2", {}, `Coverage: ${kinds.filter((k) => k === "ready").length} of ${calendar.trading_days} trading days ready, ${missing.count} missing`),
        h(
          "p",
          { class: "legend" },
          h("span", { class: "day ready" }),
          " ready ",
          h("span", { class: "day missing" }),
          " missing ",
          h("span", { class: "day upcoming" }),
          " not yet traded ",
          h("span", { class: "day holiday" }),
          " holiday or weekend",
        ),
        // One row per month, labelled, each day's cell showing its day of the month (its date in full on hover).
        h(
          "div",
          { class: "heatmap-months" },
          [...new Set(calendar.entries.map((entry) => entry.date.slice(0, 7)))].map((month) =>
            h(
              "div",
              { class: "heatmap-month", "data-month": month },
              h(
                "span",
                { class: "month-label" },
                new Date(`${month}-01T00:00:00Z`).toLocaleDateString("en-US", { month: "short", year: "numeric", timeZone: "UTC" }),
              ),
              h(
                "div",
                { class: "heatmap" },
                calendar.entries.flatMap((entry, index) => {
                  if (!entry.date.startsWith(month)) return [];
                  const kind = kinds[index]!;
                  return [
                    h(
                      "span",
                      { class: `day ${kind}`, "data-date": entry.date, title: `${entry.date}: ${kind}${entry.name ? ` (${entry.name})` : ""}` },
                      String(Number(entry.date.slice(8))),
                    ),
                  ];
                }),
              ),
            ),
          ),
        ),
        missing.missing_dates.length === 0
          ? ""
          : h("p", { class: "muted" }, `Missing: ${missing.missing_dates.slice(0, 40).join(", ")}${missing.missing_dates.length > 40 ? "…" : ""}`),
      );
      status.say(`${candles.length} candles.`);
    } catch (error) {
      status.fail(error);
    }
  }

  const importRange = async (from: string, to: string) => {
    try {
      follow();
      const task = unwrap(await api.POST("/api/v1/stock-import/import", { body: { symbol, start_date: from, end_date: to, periods: [period.value as "1d"] } }));
      status.say(`Import ${task.task_id} started.`);
    } catch (error) {
      status.fail(error);
    }
  };
  form.querySelector("#import")!.addEventListener("click", () => void importRange(start.value, end.value));
  form.querySelector("#import-missing")!.addEventListener("click", async () => {
    const missing = unwrap(
      await api.GET("/api/v1/stock-calendar/{symbol}/missing", {
        params: { path: { symbol }, query: { period: period.value as "1d", start_date: start.value, end_date: end.value } },
      }),
    );
    if (missing.missing_dates.length === 0) return status.say("Nothing is missing in this range.");
    // One import from the first missing day to the last: the import skips what is stored.
    await importRange(missing.missing_dates[0]!, missing.missing_dates.at(-1)!);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (code.value.trim().toUpperCase() !== symbol) return go(`/symbols/${encodeURIComponent(code.value.trim().toUpperCase())}`);
    void show();
  });
  if (!end.value) end.value = isoDay(new Date());
  await show();
  return () => logs?.close();
}
