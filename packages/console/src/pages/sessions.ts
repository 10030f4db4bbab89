import type { components } from "@tp/client";
import { api, href, unwrap } from "../app";
import { currencyOfSymbol, marketTime, money, zoneOf } from "../format";
import { h, statusLine, table } from "../ui";
import { recentBacktests } from "./compare";
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

/**
 * The runs of a session a trader can open: for a backtest session, its latest backtest (the run its
 * views read, whatever its end) and every backtest of it this browser started or opened (the API
 * lists no past backtests of a session, docs/console.md); for the others, the session's own page.
 */
export function runLinks(session: Session, latestRun: string | null | undefined): HTMLElement {
  if (session.trading_mode !== "backtest") return h("a", { href: href(`/sessions/${encodeURIComponent(session.id)}`) }, "live page");
  const known = recentBacktests().filter((entry) => entry.session_id === session.id);
  const ids = [...new Set([...(latestRun ? [latestRun] : []), ...known.map((entry) => entry.id)])];
  if (ids.length === 0) return h("span", { class: "muted" }, "no backtest yet");
  return h(
    "span",
    { class: "runs", "data-runs": session.id },
    ids.map((id, index) =>
      h(
        "a",
        { href: href(`/backtests/${encodeURIComponent(id)}`), title: id },
        `${index === 0 && latestRun === id ? "latest" : "backtest"} ${id.slice(0, 8)}${known.find((entry) => entry.id === id)?.status ? ` (${known.find((entry) => entry.id === id)!.status})` : ""}`,
      ),
    ),
  );
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
    // A backtest session's latest run is the run its views read (engine/status names it), completed or failed.
    const latest = new Map<string, string | null>();
    await Promise.all(
      sessions
        .filter((s) => s.trading_mode === "backtest" && !mtfById.has(s.id))
        .map(async (s) => {
          const engine = await api.GET("/api/v1/trading/sessions/{session_id}/engine/status", { params: { path: { session_id: s.id } } }).catch(() => null);
          latest.set(s.id, engine?.data?.run_id ?? null);
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
              runLinks(s, latest.get(s.id)),
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
