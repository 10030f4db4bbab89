import type { components } from "@tp/client";
import { api, href, unwrap } from "../app";
import { currencyOfSymbol, marketTime, money, zoneOf } from "../format";
import { h, statusLine, table } from "../ui";
import { presetSessionForm, strategySessionForm } from "./new-session";

export type Session = components["schemas"]["TradingSessionResponse"];
type MtfSession = components["schemas"]["MtfSessionResponse"];

/** The session's symbols, from its configuration or its tradable list. */
export const symbolsOf = (session: Session): string[] => (session.config?.symbols?.length ? session.config.symbols : (session.tradable_symbols ?? []));
/** The zone the session's market keeps: the session's own when it names one, else its first symbol's market's. */
export const zoneOfSession = (session: Session): string => session.timezone ?? zoneOf(symbolsOf(session)[0]);
/** The currency the session's capital is in. */
export const currencyOfSession = (session: Session): string =>
  Object.keys(session.initial_capital_by_currency ?? {})[0] ?? currencyOfSymbol(symbolsOf(session)[0]);

/**
 * How a session runs, as it is: an MTF session is an MTF session (its mode: historical, simulation
 * or live), a multi-channel one says its channels, not the `multi_channel` placeholder its
 * strategy name holds.
 */
export function modeOf(session: Session, mtf?: MtfSession): { mode: string; strategy: string } {
  if (mtf) {
    const executors = mtf.executors.map((e) => `${e.strategy_name} ${e.timeframe}`).join(", ");
    return { mode: `MTF · ${mtf.mode}`, strategy: `${mtf.director.strategy_name} ${mtf.director.timeframe} → ${executors}` };
  }
  const channels = session.config?.channels ?? [];
  if (channels.length > 1) return { mode: `${session.trading_mode} · ${channels.length} channels`, strategy: channels.map((c) => c.channel_id).join(", ") };
  return { mode: session.trading_mode, strategy: session.strategy_name === "multi_channel" ? "–" : session.strategy_name };
}

type Listed = components["schemas"]["BacktestListItem"];

/** Backtests linked per session at most (the newest; a sweep's runs counted, not listed: its page has them). */
const RUN_LINKS = 5;

/**
 * The runs of a session a trader can open: for a backtest session, its backtests newest first
 * (`GET /backtest?session_id=`: the latest is the run its views read, whatever its end), a sweep's
 * runs counted; for the others, the session's own page.
 */
export function runLinks(session: Session, backtests: Listed[] | undefined, more = false): HTMLElement {
  if (session.trading_mode !== "backtest") return h("a", { href: href(`/sessions/${encodeURIComponent(session.id)}`) }, "live page");
  const alone = (backtests ?? []).filter((b) => b.sweep_id === null);
  const swept = (backtests ?? []).length - alone.length;
  if (alone.length === 0 && swept === 0) return h("span", { class: "muted" }, "no backtest yet");
  return h("span", { class: "runs", "data-runs": session.id }, [
    ...alone
      .slice(0, RUN_LINKS)
      .map((b, index) =>
        h(
          "a",
          { href: href(`/backtests/${encodeURIComponent(b.backtest_id)}`), title: b.backtest_id },
          `${index === 0 ? "latest" : "backtest"} ${b.start_date} → ${b.end_date} (${b.status})`,
        ),
      ),
    ...(swept > 0 ? [h("span", { class: "muted" }, `${swept}${more ? "+" : ""} sweep run${swept === 1 && !more ? "" : "s"}`)] : []),
  ]);
}

/** /console/sessions: the caller's sessions (mode as it is, runs reachable), a new one from a strategy, and a new one from a channel preset. */
export async function sessionsPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  main.append(h("h1", {}, "Sessions"), status);
  main.append(h("div", { class: "columns" }, await strategySessionForm(), await presetSessionForm()));
  try {
    const [sessions, mtf] = await Promise.all([
      api.GET("/api/v1/trading/sessions").then(unwrap) as Promise<Session[]>,
      api
        .GET("/api/v1/trading/mtf/sessions")
        .then(unwrap)
        .catch(() => [] as MtfSession[]),
    ]);
    const mtfById = new Map(mtf.map((s) => [s.id, s]));
    // A backtest session's runs, newest first: the first is the run its views read, completed or failed.
    const runs = new Map<string, { backtests: Listed[]; more: boolean }>();
    await Promise.all(
      sessions
        .filter((s) => s.trading_mode === "backtest" && !mtfById.has(s.id))
        .map(async (s) => {
          const listed = await api.GET("/api/v1/backtest", { params: { query: { session_id: s.id, limit: 20 } } }).catch(() => null);
          runs.set(s.id, { backtests: listed?.data?.backtests ?? [], more: Boolean(listed?.data?.cursor) });
        }),
    );
    main.append(
      h(
        "div",
        { "data-table": "sessions" },
        table(
          ["Session", "Mode", "Strategy", "Status", "Capital", "Created", "Runs"],
          sessions.map((s) => {
            const { mode, strategy } = modeOf(s, mtfById.get(s.id));
            return [
              h("a", { href: href(`/sessions/${encodeURIComponent(s.id)}`) }, s.session_name),
              h("span", { "data-mode": s.id }, mode),
              strategy,
              s.status,
              money(s.initial_capital, currencyOfSession(s)),
              marketTime(s.created_at, zoneOfSession(s)),
              runLinks(s, runs.get(s.id)?.backtests, runs.get(s.id)?.more),
            ];
          }),
          `Sessions (${sessions.length})`,
        ),
      ),
    );
  } catch (error) {
    status.fail(error);
  }
}
