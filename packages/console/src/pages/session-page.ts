import Decimal from "decimal.js";
import type { components, SessionMessage, SessionStream } from "@tp/client";
import type { UTCTimestamp } from "lightweight-charts";
import { api, client, unwrap } from "../app";
import { type EquityPoint, liveEquityChart } from "../charts";
import { currencyOfSymbol, marketClock, marketTime, money, percent, signedMoney } from "../format";
import { actionButton, h, statusLine, table } from "../ui";
import { alertsSection, channelsSection, historySection, orderTicket, riskSection } from "./session-sections";
import { type Data, describeMessage, EVENT_LABELS } from "./session-events";
import { currencyOfSession, modeOf, type Session, symbolsOf, zoneOfSession } from "./sessions";

type Order = components["schemas"]["TradingOrderResponse"];
type Performance = components["schemas"]["SessionPerformance"];
type Positions = components["schemas"]["SessionLatestPositions"];

/** /console/sessions/{session_id}: what the session is worth and holds, its equity over time, orders, events and channels as they happen, and its controls. */
export async function sessionPage(main: HTMLElement, params: Record<string, string>): Promise<() => void> {
  const id = params.session_id!;
  const path = { params: { path: { session_id: id } } };
  const status = statusLine();
  const live = h("p", { class: "badge", "data-socket": "connecting", role: "status" }, "Connecting…");
  const heading = h("h1", {}, "Session");
  main.append(heading, live, status);
  let session: Session;
  try {
    session = unwrap(await api.GET("/api/v1/trading/sessions/{session_id}", path)) as Session;
  } catch (error) {
    status.fail(error);
    return () => {};
  }
  const zone = zoneOfSession(session);
  const currency = currencyOfSession(session);
  const at = (iso: string | null | undefined) => marketTime(iso, zone);
  const mtf = await api
    .GET("/api/v1/trading/mtf/sessions")
    .then((answer) => answer.data?.find((s) => s.id === id))
    .catch(() => undefined);
  const { mode, strategy } = modeOf(session, mtf);
  heading.textContent = session.session_name;
  const state = h("span", { "data-field": "status" }, session.status);
  // A start from this page puts the equity's first point on the chart (drawn below).
  let startedAt: (iso: string) => void = () => {};
  main.append(
    h("p", { class: "muted", "data-field": "about" }, `${mode} · ${strategy} · ${symbolsOf(session).join(", ")} · times in ${zone} · status `, state),
    h(
      "div",
      { class: "row" },
      (["start", "pause", "resume", "stop"] as const).map((action) =>
        actionButton(
          action[0]!.toUpperCase() + action.slice(1),
          async () => {
            const answer = unwrap(await api.POST(`/api/v1/trading/sessions/{session_id}/${action}`, path)) as { status?: string; start_time?: string | null };
            if (answer.status) state.textContent = answer.status;
            if (action === "start" && answer.start_time) startedAt(answer.start_time);
            return `Session ${answer.status ?? action}.`;
          },
          status,
        ),
      ),
    ),
  );

  // What the session is worth and holds: refreshed from the API whenever the socket says it moved.
  const summary = h("section", { "aria-label": "Summary", "data-section": "summary" }, h("h2", {}, "Summary"));
  const initial = new Decimal(session.initial_capital);
  const chart = liveEquityChart(currency);
  const point = (iso: string | null | undefined, equity: Decimal.Value): EquityPoint | null => {
    const time = iso ? Date.parse(iso) : Number.NaN;
    if (!Number.isFinite(time)) return null;
    const value = new Decimal(equity);
    return { time: Math.floor(time / 1000) as UTCTimestamp, equity: value.toNumber(), pnl: value.minus(initial).toNumber() };
  };
  startedAt = (iso) => {
    const first = point(iso, initial);
    if (first) chart.add([first]);
  };
  if (session.start_time) startedAt(session.start_time);
  const refreshSummary = async () => {
    const [performance, positions] = await Promise.all([
      api.GET("/api/v1/trading/sessions/{session_id}/performance", path).then(unwrap) as Promise<Performance>,
      api.GET("/api/v1/trading/sessions/{session_id}/positions/latest", path).then(unwrap) as Promise<Positions>,
    ]);
    const m = performance.session;
    const figure = (label: string, value: string, name: string) => h("div", { "data-figure": name }, h("span", {}, label), h("strong", {}, value));
    summary.replaceChildren(
      h("h2", {}, "Summary"),
      h("p", { class: "muted" }, `As of ${at(performance.as_of ?? positions.as_of)}`),
      h(
        "div",
        { class: "metrics" },
        figure("Equity", money(m?.final_equity ?? session.initial_capital, currency), "equity"),
        figure("Total P&L", signedMoney(m?.total_pnl ?? "0", currency), "total_pnl"),
        figure("Return", percent(m?.total_return ?? 0), "total_return"),
        figure("Unrealised P&L", signedMoney(m?.unrealized_pnl ?? "0", currency), "unrealized_pnl"),
        figure("Realised P&L", signedMoney(m?.realized_pnl ?? "0", currency), "realized_pnl"),
        figure("Win rate", percent(m?.win_rate), "win_rate"),
        figure("Trades", String(m?.total_trades ?? 0), "total_trades"),
        figure("Max drawdown", percent(m?.max_drawdown ?? 0), "max_drawdown"),
        figure("Fees", money(m?.fees_paid ?? "0", currency), "fees_paid"),
      ),
      h(
        "div",
        { "data-table": "cash" },
        table(
          ["Currency", "Cash"],
          Object.entries(positions.cash).map(([code, amount]) => [code, money(amount, code)]),
          "Cash",
        ),
      ),
      h(
        "div",
        { "data-table": "positions" },
        table(
          ["Channel", "Symbol", "Quantity", "Average price", "Last price", "Market value", "Unrealised P&L", "Opened"],
          positions.positions.map((p) => [
            p.channel_id,
            p.symbol,
            p.quantity,
            money(p.average_price, p.currency),
            money(p.last_price, p.currency),
            money(p.market_value, p.currency),
            signedMoney(p.unrealized_pnl, p.currency),
            at(p.opened_at),
          ]),
          positions.positions.length === 0 ? "Positions: none open" : `Positions (${positions.positions.length})`,
        ),
      ),
    );
    const now = point(performance.as_of, m?.final_equity ?? session.initial_capital);
    if (now) chart.add([now]);
  };
  let summaryDue: ReturnType<typeof setTimeout> | undefined;
  const summarySoon = () => {
    clearTimeout(summaryDue);
    summaryDue = setTimeout(() => void refreshSummary().catch((error: unknown) => status.fail(error)), 800);
  };
  main.append(summary, chart.element);
  await refreshSummary().catch((error: unknown) => status.fail(error));

  // Orders: the stored page first, then every order event from the socket updates its row.
  const orders = new Map<string, Partial<Order> & { id: string }>();
  const ordersBody = h("tbody", {});
  const orderRows = () =>
    ordersBody.replaceChildren(
      ...[...orders.values()].reverse().map((o) =>
        h(
          "tr",
          { "data-order": o.id, "data-status": o.status ?? "" },
          [
            at(o.submitted_at),
            o.symbol,
            o.side,
            o.exit_reason ? `${o.order_type} · ${o.exit_reason.replace("_", " ")}` : o.order_type,
            o.quantity,
            o.status,
            (o.filled_price ?? o.price) ? money(o.filled_price ?? o.price, currencyOfSymbol(o.symbol)) : "–",
            o.filled_quantity ?? "–",
          ].map((cell) => h("td", {}, String(cell ?? "–"))),
        ),
      ),
    );
  const events = h("ol", { class: "events", "aria-live": "polite", "aria-label": "Live events" });
  main.append(
    h("h2", {}, "Orders"),
    h(
      "table",
      { "data-table": "orders" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Submitted", "Symbol", "Side", "Type", "Quantity", "Status", "Price", "Filled"].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      ordersBody,
    ),
    h("h2", {}, "Live events"),
    events,
  );
  try {
    const page = unwrap(await api.GET("/api/v1/trading/sessions/{session_id}/orders", { params: { path: { session_id: id }, query: { limit: 200 } } }));
    for (const order of page.orders.reverse()) orders.set(order.id, order);
    orderRows();
  } catch (error) {
    status.fail(error);
  }

  const channels = await channelsSection(id, currency);
  // Each channel's P&L at each `channel_metrics` instant: the session's equity is the capital plus their sum.
  const metricsAt = new Map<string, Map<string, number>>();
  let metricsDue = false;
  const plotMetrics = () => {
    metricsDue = false;
    const points: EquityPoint[] = [];
    for (const [time, byChannel] of metricsAt) {
      const pnl = [...byChannel.values()].reduce((sum, value) => sum.plus(value), new Decimal(0));
      const added = point(time, initial.plus(pnl));
      if (added) points.push(added);
    }
    metricsAt.clear();
    chart.add(points);
  };

  const onMessage = (message: SessionMessage) => {
    const data = ((message as { data?: Data }).data ?? {}) as Data;
    const type = message.type as string;
    if (type === "pong") return;
    if (type.startsWith("order_")) {
      const orderId = String(data.order_id ?? data.id ?? "");
      if (orderId && type !== "order_denied") {
        const known = orders.get(orderId) ?? { id: orderId };
        orders.set(orderId, {
          ...known,
          symbol: (data.symbol as string) ?? known.symbol,
          side: (data.side as Order["side"]) ?? known.side,
          order_type: (data.order_type as Order["order_type"]) ?? known.order_type,
          quantity: (data.quantity as string) ?? known.quantity,
          submitted_at: known.submitted_at ?? (data.event_time as string),
          status: (type === "order_cancel_requested" ? known.status : type.replace("order_", "")) as Order["status"],
          filled_price: (data.price as string) ?? known.filled_price,
          filled_quantity: type === "order_filled" ? ((data.quantity as string) ?? known.filled_quantity) : known.filled_quantity,
        });
        orderRows();
      }
    }
    if (type === "channel_update" || type === "channel_status" || type === "channel_metrics") channels.follow(type, data);
    if (type === "channel_metrics" && typeof data.timestamp === "string" && typeof data.channel_id === "string") {
      const byChannel = metricsAt.get(data.timestamp) ?? new Map<string, number>();
      byChannel.set(data.channel_id, Number(data.total_pnl ?? 0));
      metricsAt.set(data.timestamp, byChannel);
      if (!metricsDue) {
        metricsDue = true;
        queueMicrotask(plotMetrics);
      }
    }
    if (["order_filled", "position_changed", "trade_closed", "channel_metrics", "day_end"].includes(type)) summarySoon();
    const when = (data.event_time as string) ?? (data.timestamp as string) ?? (message as { timestamp?: string }).timestamp;
    events.prepend(
      h(
        "li",
        { "data-type": type, ...(data.sequence !== undefined ? { "data-sequence": String(data.sequence) } : {}) },
        h("time", { datetime: when ?? "" }, marketClock(when, zone)),
        " ",
        h("strong", {}, EVENT_LABELS[type] ?? type.replace(/_/g, " ")),
        " ",
        h("span", { class: "content" }, describeMessage(type, data, currency)),
      ),
    );
    while (events.children.length > 200) events.lastChild!.remove();
  };
  let stream: SessionStream | undefined;
  try {
    // From the session's start: what the feed still holds comes first (the events, the channels' states, the equity so far).
    stream = await client.followSession(
      id,
      {
        onMessage,
        onStatus: (socketState, detail) => {
          live.dataset.socket = socketState;
          live.textContent =
            socketState === "open"
              ? "Live"
              : socketState === "reconnecting"
                ? `Reconnecting (attempt ${detail.attempt ?? 1})…`
                : socketState === "closed"
                  ? "Disconnected: reload to follow again"
                  : "Connecting…";
        },
      },
      { since: session.start_time ?? undefined },
    );
  } catch (error) {
    status.fail(error);
  }

  main.append(orderTicket(id), channels.element, await riskSection(id), await alertsSection(id, zone), await historySection(id, zone));
  return () => {
    clearTimeout(summaryDue);
    stream?.close();
  };
}
