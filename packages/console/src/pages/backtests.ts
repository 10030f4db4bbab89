import type { components, SessionStream } from "@tp/client";
import { api, client, go, href, unwrap } from "../app";
import { candleChart, equityChart, type Candle } from "../charts";
import { METRICS, shown } from "../metrics";
import { actionButton, field, fields, h, statusLine, symbolList, table, when } from "../ui";
import { recentBacktests, rememberBacktest, runLabel } from "./compare";
import { currencyOfSymbol, marketTime, money, percent, signedMoney, tradingDay, zoneOf } from "../format";

type Strategy = components["schemas"]["StrategyMetadata"];
type Parameter = components["schemas"]["ParameterDefinition"];
type Progress = components["schemas"]["BacktestProgressResponse"];
const TIMEFRAMES = ["1m", "5m", "15m", "30m", "1h", "4h", "1d"] as const;

/** One input per parameter definition: its type, default, range and help text. */
function parameterInput(parameter: Parameter): { element: HTMLElement; value: () => unknown } {
  const label = parameter.name.replace(/_/g, " ");
  const range = parameter.min !== undefined || parameter.max !== undefined ? ` (${parameter.min ?? "…"} to ${parameter.max ?? "…"})` : "";
  const help = `${parameter.description}${range}`;
  if (parameter.type === "boolean") {
    const box = h("input", { type: "checkbox", name: parameter.name, checked: parameter.default === true });
    return { element: field(label, box, help), value: () => box.checked };
  }
  if (parameter.type === "enum" || parameter.options?.length) {
    const select = h(
      "select",
      { name: parameter.name },
      (parameter.options ?? []).map((option) => h("option", { value: option, selected: option === parameter.default }, option)),
    );
    return { element: field(label, select, help), value: () => select.value };
  }
  const numeric = parameter.type === "integer" || parameter.type === "number";
  const input = h("input", {
    name: parameter.name,
    type: numeric ? "number" : "text",
    value: String(parameter.default ?? ""),
    min: parameter.min,
    max: parameter.max,
    step: parameter.type === "integer" ? 1 : "any",
    required: parameter.required,
  });
  return { element: field(label, input, help), value: () => (numeric ? Number(input.value) : input.value) };
}

/** /console/backtests: the form from the strategy metadata, start, live progress, pause, resume and stop. */
export async function backtestsPage(main: HTMLElement): Promise<() => void> {
  const status = statusLine();
  main.append(h("h1", {}, "Backtests"), status);
  let strategies: Strategy[] = [];
  try {
    strategies = unwrap(await api.GET("/api/v1/strategies/metadata/all")).strategies;
  } catch (error) {
    status.fail(error);
    return () => {};
  }
  const strategy = h(
    "select",
    { name: "strategy" },
    strategies.map((s) => h("option", { value: s.strategy_id }, `${s.display_name} (${s.category})`)),
  );
  const symbols = h("input", { name: "symbols", value: "AAPL.US", required: true });
  const start = h("input", { name: "start_date", type: "date", value: "2024-01-02", required: true });
  const end = h("input", { name: "end_date", type: "date", value: "2024-06-28", required: true });
  const capital = h("input", { name: "initial_capital", type: "number", value: "100000", min: 1, step: "any", required: true });
  const benchmark = h("input", { name: "benchmark", placeholder: "SPY.US" });
  const timeframe = h(
    "select",
    { name: "timeframe" },
    TIMEFRAMES.map((t) => h("option", { value: t, selected: t === "1d" }, t)),
  );
  const parameters = h("fieldset", {}, h("legend", {}, "Parameters"));
  const description = h("p", { class: "muted" });
  let values: Record<string, () => unknown> = {};
  const showParameters = () => {
    const chosen = strategies.find((s) => s.strategy_id === strategy.value);
    parameters.replaceChildren(h("legend", {}, "Parameters"));
    values = {};
    description.textContent = chosen ? `${chosen.description} · risk ${chosen.risk_level} · timeframes ${chosen.timeframes.join(", ")}` : "";
    for (const parameter of chosen?.parameters ?? []) {
      const input = parameterInput(parameter);
      values[parameter.name] = input.value;
      parameters.append(input.element);
    }
    if (chosen?.timeframes[0]) timeframe.value = chosen.timeframes.includes("1d") ? "1d" : chosen.timeframes[0];
  };
  strategy.addEventListener("change", showParameters);
  strategy.value = strategies.some((s) => s.strategy_id === "ma_crossover") ? "ma_crossover" : (strategies[0]?.strategy_id ?? "");
  showParameters();

  const progressBar = h("progress", { max: 100, value: 0, "aria-label": "Backtest progress" });
  const progressText = h("p", { role: "status", class: "status" });
  const controls = h("div", { class: "row", hidden: true });
  const form = h(
    "form",
    { class: "card", "aria-label": "New backtest" },
    h("h2", {}, "New backtest"),
    field("Strategy", strategy),
    description,
    fields(
      field("Symbols", symbols, "Comma-separated, like AAPL.US, 700.HK"),
      field("Timeframe", timeframe),
      field("Start date", start),
      field("End date", end),
      field("Initial capital", capital),
      field("Benchmark", benchmark, "Optional: a symbol the result is measured against (alpha, beta…), its line on the equity chart"),
    ),
    parameters,
    h("button", { type: "submit" }, "Start backtest"),
  );
  main.append(form, h("section", { class: "card", "aria-label": "Progress" }, h("h2", {}, "Progress"), progressBar, progressText, controls));
  const recent = recentBacktests();
  if (recent.length > 0) {
    main.append(
      h(
        "section",
        { class: "card", "aria-label": "Recent backtests" },
        h("h2", {}, "Recent backtests"),
        recent.length > 1
          ? h("a", { href: href(`/backtests/compare?ids=${encodeURIComponent(recent[1]!.id)},${encodeURIComponent(recent[0]!.id)}`) }, "Compare the last two")
          : null,
        table(
          ["Backtest", "Run", "Opened"],
          recent.map((entry) => [h("a", { href: href(`/backtests/${encodeURIComponent(entry.id)}`) }, entry.id), entry.label, when(entry.at)]),
          "Started or opened in this browser",
        ),
      ),
    );
  }

  let stream: SessionStream | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    stream?.close();
    if (poll) clearInterval(poll);
  };
  // The end arrives from the socket and from polling alike: the page acts on it once.
  let ended = false;
  const show = (progress: Omit<Progress, "start_date" | "end_date"> | Progress) => {
    if (ended) return;
    progressBar.value = progress.progress;
    progressText.textContent = `${progress.stage} · ${progress.progress.toFixed(0)}% · ${progress.bars_processed}/${progress.bars_total} bars${progress.current_time ? ` · at ${when(progress.current_time)}` : ""}${progress.is_paused ? " · paused" : ""}`;
    if (progress.stage === "done" || ["completed", "failed", "stopped", "cancelled"].includes(progress.status)) {
      ended = true;
      stop();
      if (progress.status === "completed" || progress.stage === "done") go(`/backtests/${encodeURIComponent(progress.backtest_id)}`);
      else status.say(`The backtest ended ${progress.status}: ${progress.message}`, "error");
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    stop();
    ended = false;
    const config: Record<string, unknown> = { execution: { timeframe: timeframe.value } };
    for (const [name, value] of Object.entries(values)) config[name] = value();
    status.say("Starting…");
    try {
      const session = unwrap(
        await api.POST("/api/v1/trading/sessions", {
          body: {
            session_name: `console backtest ${strategy.value}`,
            trading_mode: "backtest",
            asset_mode: "simulated",
            initial_capital: capital.value,
            config: {},
          } as never,
        }),
      ) as { id: string };
      // The progress arrives on the session's socket; polling takes over while the socket is down.
      stream = await client.followSession(session.id, {
        onMessage: (message) => {
          if (message.type === "backtest_progress") show(message.data as Progress);
        },
        onStatus: (state) => {
          if (state === "reconnecting") progressText.textContent = "Reconnecting to the progress stream…";
        },
      });
      const started = unwrap(
        await api.POST("/api/v1/backtest/start", {
          body: {
            session_id: session.id,
            strategy_name: strategy.value,
            strategy_config: config,
            symbols: symbolList(symbols.value),
            start_date: start.value,
            end_date: end.value,
            initial_capital: capital.value,
            timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
            ...(benchmark.value.trim() ? { benchmark: benchmark.value.trim() } : {}),
          } as never,
        }),
      );
      const id = started.backtest_id;
      if (!id) return status.say(started.message, "error");
      rememberBacktest(id, `${strategy.value} on ${symbols.value}, ${start.value} to ${end.value}`, { session_id: session.id, status: "running" });
      status.say(`Backtest ${id} started.`);
      controls.hidden = false;
      controls.replaceChildren(
        ...(["pause", "resume", "stop"] as const).map((action) =>
          actionButton(
            action[0]!.toUpperCase() + action.slice(1),
            async () => {
              const answer = unwrap(await api.POST(`/api/v1/backtest/{backtest_id}/${action}`, { params: { path: { backtest_id: id } } }));
              return (answer as { message?: string }).message ?? `${action} sent`;
            },
            status,
          ),
        ),
      );
      poll = setInterval(async () => {
        try {
          show(unwrap(await api.GET("/api/v1/backtest/{backtest_id}/progress", { params: { path: { backtest_id: id } } })));
        } catch {
          // The next tick asks again; the socket may have answered meanwhile.
        }
      }, 2000);
    } catch (error) {
      status.fail(error);
    }
  });
  return stop;
}

/** What closed a trade, as the tables say it. */
const EXIT_LABEL: Record<string, string> = {
  stop_loss: "stop loss",
  take_profit: "take profit",
  trailing_stop: "trailing stop",
  signal: "signal",
  manual: "by hand",
};

/** /console/backtests/{backtest_id}: equity and drawdown, metrics, trades, fills on the candles. */
export async function backtestResultPage(main: HTMLElement, params: Record<string, string>): Promise<void> {
  const id = params.backtest_id!;
  const status = statusLine();
  main.append(h("h1", {}, `Backtest ${id}`), status);
  const result = await api
    .GET("/api/v1/backtest/{backtest_id}/result", { params: { path: { backtest_id: id } } })
    .then(unwrap)
    .catch((error: unknown) => void status.fail(error));
  if (!result) return;
  rememberBacktest(id, runLabel(result), { session_id: result.session_id, status: result.status });
  const equity = equityChart(result.equity_curve, result.benchmark ?? null);
  main.append(
    h(
      "p",
      { class: "muted" },
      `${runLabel(result)} · ${result.timeframe} · ${result.status} · `,
      h("a", { href: href(`/backtests/compare?ids=${encodeURIComponent(id)}`) }, "Compare with another backtest"),
    ),
    h(
      "section",
      { class: "metrics", "aria-label": "Metrics" },
      METRICS.map((metric) =>
        h("div", {}, h("span", {}, metric.label), h("strong", {}, shown(metric.kind, metric.of(result), currencyOfSymbol(result.symbols[0])))),
      ),
    ),
    equity.element,
  );
  if (result.benchmark) main.append(benchmarkFigures(result.benchmark));
  main.append(monteCarloCard(id, equity, currencyOfSymbol(result.symbols[0])));
  // What a trader should know before trusting the figures (docs/backtests.md "Warnings").
  if (result.warnings.length > 0)
    main.append(
      h(
        "section",
        { "aria-label": "Warnings", "data-list": "warnings" },
        h("h2", {}, `Warnings (${result.warnings.length})`),
        h(
          "ul",
          {},
          result.warnings.map((warning) => h("li", { "data-code": warning.code }, h("strong", {}, warning.code), ` ${warning.message}`)),
        ),
      ),
    );
  const symbol = result.symbols[0];
  if (symbol) {
    const candles = await loadCandles(symbol, result.timeframe === "1d" ? "1d" : result.timeframe, result.start_date, result.end_date).catch(
      () => [] as Candle[],
    );
    const fills = result.fills.filter((fill) => fill.symbol === symbol);
    main.append(
      candleChart(
        `${symbol} with the fills`,
        candles,
        fills.map((fill) => ({
          time: fill.timestamp,
          side: fill.side,
          text: `${fill.exit_reason ? `${EXIT_LABEL[fill.exit_reason]} ` : ""}${fill.side} ${fill.quantity}`,
        })),
      ),
    );
  }
  // Daily bars' fills and trades are on a trading day (a date); intraday ones at the market's time, its zone named.
  const zone = zoneOf(result.symbols[0]);
  const at = (time: string) => (result.timeframe === "1d" ? tradingDay(time, zone) : marketTime(time, zone));
  const currency = (symbol: string) => currencyOfSymbol(symbol);
  main.append(
    table(
      ["Symbol", "Direction", "Quantity", "Entry", "Entry price", "Exit", "Exit price", "Exit by", "P&L", "Fees"],
      result.trades.map((t) => [
        t.symbol,
        t.direction,
        t.quantity,
        at(t.entry_time),
        t.entry_price,
        at(t.exit_time),
        t.exit_price,
        EXIT_LABEL[t.exit_reason],
        signedMoney(t.pnl, currency(t.symbol)),
        money(t.fees, currency(t.symbol)),
      ]),
      `Trades (${result.trades.length})`,
    ),
    h(
      "div",
      { "data-table": "fills" },
      table(
        ["Time", "Symbol", "Side", "Quantity", "Price", "Commission", "Order", "Type", "Exit"],
        result.fills.map((f) => [
          at(f.timestamp),
          f.symbol,
          f.side,
          f.quantity,
          f.price,
          money(f.commission, currency(f.symbol)),
          f.order_id,
          f.order_type,
          f.exit_reason ? `${EXIT_LABEL[f.exit_reason]} at ${f.trigger_price}` : "",
        ]),
        `Fills (${result.fills.length})`,
      ),
    ),
  );
}

type Benchmark = NonNullable<components["schemas"]["BacktestResult"]["benchmark"]>;
type MonteCarlo = components["schemas"]["MonteCarloResult"];

/** The result measured against its benchmark (docs/backtests.md "Benchmark-relative figures"). */
function benchmarkFigures(benchmark: Benchmark): HTMLElement {
  const ratio = (value: number | null) => (value === null ? "—" : value.toFixed(3));
  return h(
    "div",
    { "data-table": "benchmark" },
    table(
      ["Benchmark", "Its return", "Alpha", "Beta", "Correlation", "Tracking error", "Information ratio"],
      [
        [
          benchmark.symbol,
          benchmark.total_return === null ? "—" : percent(benchmark.total_return),
          benchmark.alpha === null ? "—" : percent(benchmark.alpha),
          ratio(benchmark.beta),
          ratio(benchmark.correlation),
          benchmark.tracking_error === null ? "—" : percent(benchmark.tracking_error),
          ratio(benchmark.information_ratio),
        ],
      ],
      `Against ${benchmark.symbol} (alpha and tracking error annualised)`,
    ),
  );
}

/**
 * A Monte Carlo of the backtest's closed trades (docs/backtests.md "Monte Carlo"): paths, method
 * and seed; the answer's 5–95 and 25–75 percentile bands drawn over the equity curve, its
 * percentiles in a table.
 */
function monteCarloCard(id: string, equity: ReturnType<typeof equityChart>, currency: string): HTMLElement {
  const paths = h("input", { name: "paths", type: "number", value: "1000", min: 1, max: 100000, step: 1, required: true });
  const method = h(
    "select",
    { name: "method" },
    h("option", { value: "reshuffle", selected: true }, "reshuffle"),
    h("option", { value: "bootstrap" }, "bootstrap"),
  );
  const seed = h("input", { name: "seed", type: "number", min: 0, max: 4294967295, step: 1, placeholder: "drawn" });
  const status = statusLine();
  const figures = h("div", { "data-table": "monte-carlo" });
  const form = h(
    "form",
    { class: "card", "aria-label": "Monte Carlo" },
    h("h2", {}, "Monte Carlo"),
    fields(
      field("Paths", paths, "At most 100,000"),
      field("Method", method, "reshuffle: the trades in a random order (every path ends where the backtest did); bootstrap: drawn with replacement"),
      field("Seed", seed, "The same seed gives the same paths; empty: one is drawn"),
    ),
    h("button", { type: "submit" }, "Run Monte Carlo"),
    status,
    figures,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.say("Running…");
    try {
      const answer = unwrap(
        await api.POST("/api/v1/backtest/{backtest_id}/monte-carlo", {
          params: { path: { backtest_id: id } },
          body: { paths: Number(paths.value), method: method.value, ...(seed.value ? { seed: Number(seed.value) } : {}) } as never,
        }),
      ) as MonteCarlo;
      equity.showBands(answer.bands);
      const row = (label: string, p: Record<"p5" | "p25" | "p50" | "p75" | "p95", string | number>, show: (v: string | number) => string) => [
        label,
        ...(["p5", "p25", "p50", "p75", "p95"] as const).map((key) => show(p[key])),
      ];
      figures.replaceChildren(
        table(
          ["Figure", "5th", "25th", "50th", "75th", "95th"],
          [
            row("Final equity", answer.final_equity, (v) => money(String(v), currency)),
            row("Total return", answer.total_return, (v) => percent(Number(v))),
            row("Max drawdown", answer.max_drawdown, (v) => percent(Number(v))),
            row("Max drawdown (trades)", answer.max_drawdown_trades, String),
            row("Max drawdown (days)", answer.max_drawdown_days, String),
          ],
          `${answer.paths} paths of ${answer.trades} trades, ${answer.method}, seed ${answer.seed}`,
        ),
      );
      status.say(`Bands drawn: 5th–95th and 25th–75th percentiles over ${answer.paths} paths (seed ${answer.seed}).`);
    } catch (error) {
      status.fail(error);
    }
  });
  return form;
}

/** A symbol's stored candles over a period, every page of them. */
export async function loadCandles(symbol: string, period: string, startDate: string, endDate: string): Promise<Candle[]> {
  const candles: Candle[] = [];
  for (let page = 1; ; page++) {
    const answer = unwrap(
      await api.GET("/api/v1/stock-data", {
        params: {
          query: { code: symbol, period, start_date: startDate, end_date: endDate, sort_by: "timestamp", sort_order: "asc", page, page_size: 1000 } as never,
        },
      }),
    );
    candles.push(...answer.data);
    if (page >= answer.total_pages || answer.data.length === 0) return candles;
  }
}
