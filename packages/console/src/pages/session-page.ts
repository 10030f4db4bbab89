import Decimal from "decimal.js";
import type { components, SessionMessage, SessionStream } from "@tp/client";
import type { UTCTimestamp } from "lightweight-charts";
import { api, client, unwrap } from "../app";
import { type EquityPoint, liveEquityChart } from "../charts";
import { currencyOfSymbol, isUuid, marketClock, marketTime, money, percent, signedMoney } from "../format";
import { actionButton, field, fields, h, statusLine, table } from "../ui";
import { currencyOfSession, modeOf, type Session, symbolsOf, zoneOfSession } from "./sessions";

type Order = components["schemas"]["TradingOrderResponse"];
type Performance = components["schemas"]["SessionPerformance"];
type Positions = components["schemas"]["SessionLatestPositions"];
type User = components["schemas"]["UserResponse"];
type Data = Record<string, unknown>;

/** A field of an event's data as text ("" when absent). */
const text = (data: Data, name: string): string => (data[name] === undefined || data[name] === null ? "" : String(data[name]));

/** An order as a line names it: what it trades when the event says, never its id (the orders table has the rows). */
/** A price as the engine computed it, without binary floating point's noise (143.31900000000002 → 143.319). */
const priceOf = (data: Data, name: string): string => {
  const value = Number(data[name]);
  return Number.isFinite(value) ? String(Number(value.toPrecision(12))) : text(data, name);
};

const orderName = (data: Data): string =>
  data.symbol ? `order ${[text(data, "side"), text(data, "quantity"), text(data, "symbol")].filter(Boolean).join(" ")}` : "an order";

/**
 * What a pushed message says, in words, with its figures formatted (docs/console.md "Live
 * events"): the same facts as the session log's line (`messageOf` in core), money with its currency.
 */
export function describeMessage(type: string, data: Data, currency: string): string {
  const channel = data.channel_id ? `[${String(data.channel_id)}] ` : "";
  const cash = (name: string) => money(text(data, name) || null, text(data, "currency") || currency);
  switch (type) {
    case "order_submitted":
      return `${channel}${text(data, "side")} ${text(data, "quantity")} ${text(data, "symbol")} ${text(data, "order_type")}${data.limit_price ? ` at ${priceOf(data, "limit_price")}` : ""} submitted${data.reason ? ` (${text(data, "reason")})` : ""}`;
    case "order_filled":
      return `${channel}${text(data, "side")} ${text(data, "quantity")} ${text(data, "symbol")} filled at ${priceOf(data, "price")}, commission ${cash("commission")}`;
    case "order_denied":
      return `${channel}denied ${text(data, "side")} ${text(data, "quantity")} ${text(data, "symbol")}: ${text(data, "message")}`;
    case "order_rejected":
      return `${channel}${orderName(data)} rejected: ${text(data, "message")}`;
    case "order_cancelled":
      return `${channel}${orderName(data)} cancelled: ${text(data, "reason")}`;
    case "order_cancel_requested":
      return `${channel}cancel of ${orderName(data)} requested${data.reason ? ` (${text(data, "reason")})` : ""}`;
    case "order_routed":
      return `${channel}${orderName(data)} sent to the broker`;
    case "order_replaced":
      return `${channel}${orderName(data)} replaced: quantity ${text(data, "quantity")}`;
    case "position_changed":
      return `${channel}position ${text(data, "symbol")} now ${text(data, "quantity")}`;
    case "trade_closed":
      return `${channel}trade closed: ${text(data, "direction")} ${text(data, "quantity")} ${text(data, "symbol")} ${text(data, "entry_price")} → ${text(data, "exit_price")}, P&L ${signedMoney(text(data, "pnl") || null, text(data, "currency") || currency)}`;
    case "risk_event":
    case "alert":
    case "log":
      return `${channel}${text(data, "message") || text(data, "kind")}`;
    case "alert_acknowledged":
      return `${channel}alert ${text(data, "alert_sequence")} acknowledged by ${text(data, "acknowledged_by")}`;
    case "channel_status":
      return `${channel}channel ${text(data, "previous")} → ${text(data, "status")}${data.session_action ? ` (session ${text(data, "session_action")})` : ""}`;
    case "channel_update": {
      const metrics = (data.metrics ?? {}) as Data;
      return `${channel}${text(data, "status")} · P&L ${signedMoney(metrics.total_pnl as number, currency)} · win rate ${percent(metrics.win_rate as number)} · ${text(metrics, "total_trades")} trades`;
    }
    case "channel_metrics":
      return `${channel}P&L ${signedMoney(data.total_pnl as number, currency)} (unrealised ${signedMoney(data.unrealized_pnl as number, currency)}) · drawdown ${percent(data.current_drawdown as number)} · win rate ${percent(data.win_rate as number)} · ${text(data, "active_positions")} positions`;
    case "day_end":
      return `trading day closed, equity ${money(text(data, "equity") || null, currency)}`;
    case "backtest_progress":
      return `backtest ${text(data, "stage")} ${Number(data.progress ?? 0).toFixed(0)}%`;
    case "bias_changed":
      return `${channel}director bias of ${text(data, "symbol")} ${text(data, "previous")} → ${text(data, "bias")}`;
    case "signal":
      return `${channel}signal ${text(data, "side")} ${text(data, "symbol")} to weight ${text(data, "target_weight")}`;
    default:
      // Every field in words but the ids (an order's id carries its session's UUID: nothing a reader looks for).
      return Object.entries(data)
        .filter(
          ([name, value]) => !["sequence", "event_time"].includes(name) && !name.endsWith("_id") && (typeof value === "string" || typeof value === "number"),
        )
        .map(([name, value]) => `${name.replace(/_/g, " ")} ${String(value)}`)
        .join(" · ");
  }
}

const EVENT_LABELS: Record<string, string> = {
  order_submitted: "Order submitted",
  order_routed: "Order routed",
  order_filled: "Order filled",
  order_cancelled: "Order cancelled",
  order_rejected: "Order rejected",
  order_denied: "Order denied",
  position_changed: "Position",
  trade_closed: "Trade closed",
  channel_status: "Channel status",
  channel_update: "Channel",
  channel_metrics: "Channel figures",
  risk_event: "Risk",
  alert: "Alert",
  log: "Log",
};

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

/** A channel's brief figures: its P&L, win rate and trades, formatted. */
const briefFigures = (metrics: Data, currency: string): string =>
  `P&L ${signedMoney((metrics.total_pnl as number) ?? 0, currency)} · win rate ${percent((metrics.win_rate as number) ?? 0)} · ${String(metrics.total_trades ?? 0)} trades`;

/**
 * The channels with their status and figures, kept up to date from the socket (`follow`): a
 * `channel_status` or `channel_update` sets the status, `channel_metrics` the figures; no reload.
 */
async function channelsSection(id: string, currency: string): Promise<{ element: HTMLElement; follow(type: string, data: Data): void }> {
  const rows = new Map<string, { status: HTMLElement; figures: HTMLElement }>();
  const element = await panel("Channels", async (section, status) => {
    const list = unwrap(await api.GET("/api/v1/sessions/{session_id}/channels", { params: { path: { session_id: id } } }));
    const channels = list.channels as unknown as Data[];
    if (channels.length === 0) section.append(h("p", { class: "muted" }, "This session runs one strategy, no channels."));
    section.append(
      h(
        "div",
        { "data-table": "channels" },
        table(
          ["Channel", "Type", "Status", "Capital", "Figures", "Actions"],
          channels.map((channel) => {
            const channelId = String(channel.channel_id);
            const params = { params: { path: { session_id: id, channel_id: channelId } } };
            const state = h("span", { "data-channel-status": channelId }, `${String(channel.status)}${channel.is_halted ? " (halted)" : ""}`);
            const figures = h("span", { "data-channel-figures": channelId }, briefFigures((channel.metrics ?? {}) as Data, currency));
            rows.set(channelId, { status: state, figures });
            return [
              channelId,
              String(channel.channel_type ?? "–"),
              state,
              channel.capital_allocation === undefined ? "–" : `${percent(channel.capital_allocation as number, 0)} of capital`,
              figures,
              h(
                "div",
                { class: "row" },
                (["start", "pause", "resume", "stop"] as const).map((action) =>
                  actionButton(
                    `${action} ${channelId}`,
                    async () => {
                      const answer = unwrap(await api.POST(`/api/v1/sessions/{session_id}/channels/{channel_id}/${action}`, params)) as {
                        message?: string;
                        status?: string;
                      };
                      if (answer.status) state.textContent = answer.status;
                      return answer.message ?? `Channel ${channelId}: ${answer.status ?? action}`;
                    },
                    status,
                  ),
                ),
              ),
            ];
          }),
        ),
      ),
    );
  });
  return {
    element,
    follow(type, data) {
      const row = rows.get(String(data.channel_id));
      if (!row) return;
      if ((type === "channel_update" || type === "channel_status") && typeof data.status === "string") row.status.textContent = data.status;
      if (type === "channel_update") row.figures.textContent = briefFigures((data.metrics ?? {}) as Data, currency);
      if (type === "channel_metrics") row.figures.textContent = briefFigures(data, currency);
    },
  };
}

/** A change of one field, `{from, to}` as the history stores it, in words. */
function changeText(field: string, change: unknown): string {
  const value = (v: unknown) => (v === null || v === undefined ? "none" : typeof v === "object" ? JSON.stringify(v) : String(v));
  const name = field.replace(/_/g, " ");
  if (change && typeof change === "object" && ("from" in change || "to" in change)) {
    const { from, to } = change as { from?: unknown; to?: unknown };
    return `${name} ${value(from)} → ${value(to)}`;
  }
  return `${name} ${value(change)}`;
}

/** What a configuration version changed: per channel, each field from and to; the first version is the configuration the session was created with. */
export function describeChanges(version: number, changes: Record<string, unknown>): string {
  const parts = Object.entries(changes).map(([channel, fields]) =>
    fields && typeof fields === "object" && !Array.isArray(fields)
      ? `${channel}: ${Object.entries(fields as Record<string, unknown>)
          .map(([name, change]) => changeText(name, change))
          .join(", ")}`
      : changeText(channel, fields),
  );
  if (parts.length > 0) return parts.join("; ");
  return version === 1 ? "the configuration the session was created with" : "no change";
}

/** The people a history names: the caller, and every user when the caller is an administrator. */
async function people(): Promise<(who: string) => string> {
  const names = new Map<string, string>();
  try {
    const me = unwrap(await api.GET("/api/v1/me")) as User;
    names.set(me.id, me.username);
    const users = await api.GET("/api/v1/users").catch(() => null);
    for (const user of (users?.data ?? []) as User[]) names.set(user.id, user.username);
  } catch {
    // Without the names, ids are not shown: "another user" says as much as can be said.
  }
  return (who) => names.get(who) ?? (isUuid(who) ? "another user" : who);
}

function historySection(id: string, zone: string): Promise<HTMLElement> {
  return panel("Configuration history", async (section, status) => {
    const [{ history, current_version }, nameOf] = await Promise.all([
      api.GET("/api/v1/sessions/{session_id}/config/history", { params: { path: { session_id: id } } }).then(unwrap),
      people(),
    ]);
    section.append(
      h(
        "div",
        { "data-table": "history" },
        table(
          ["Version", "When", "By", "What changed", ""],
          history.map((version) => [
            `${version.version}${version.is_current ? " (current)" : version.is_pending ? " (pending)" : ""}`,
            marketTime(version.timestamp, zone),
            nameOf(version.changed_by),
            describeChanges(version.version, version.changes),
            version.version === current_version
              ? ""
              : actionButton(
                  `Roll back to ${version.version}`,
                  async () => {
                    const answer = unwrap(
                      await api.POST("/api/v1/sessions/{session_id}/config/rollback", {
                        params: { path: { session_id: id } },
                        body: { target_version: version.version },
                      }),
                    );
                    return answer.message;
                  },
                  status,
                ),
          ]),
        ),
      ),
    );
  });
}

/** A manual order into the session: the form's checks, then the session's pre-trade checks (validate), then the order. */
function orderTicket(sessionId: string): HTMLElement {
  const status = statusLine();
  const symbol = h("input", { name: "symbol", required: true, pattern: "^[A-Za-z0-9]+\\.(US|HK)$", placeholder: "AAPL.US" });
  const side = h("select", { name: "side" }, h("option", { value: "buy" }, "buy"), h("option", { value: "sell" }, "sell"));
  const type = h(
    "select",
    { name: "order_type" },
    ["market", "limit", "stop"].map((t) => h("option", { value: t }, t)),
  );
  const quantity = h("input", { name: "quantity", type: "number", min: 1, step: 1, required: true });
  const price = h("input", { name: "price", type: "number", min: 0, step: "any" });
  const form = h(
    "form",
    { class: "card", "aria-label": "Order ticket", novalidate: true },
    h("h2", {}, "Order ticket"),
    h("p", { class: "muted" }, "Places a manual order into this session: its pre-trade checks answer first, and a denied order is not sent."),
    fields(
      field("Symbol", symbol),
      field("Side", side),
      field("Order type", type),
      field("Quantity", quantity),
      field("Price", price, "Needed for limit and stop orders"),
    ),
    h("button", { type: "submit" }, "Place order"),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problems: string[] = [];
    if (!/^[A-Za-z0-9]+\.(US|HK)$/i.test(symbol.value.trim())) problems.push("Symbol: a code with its market, like AAPL.US");
    if (!(Number(quantity.value) > 0) || !Number.isInteger(Number(quantity.value))) problems.push("Quantity: a whole number above 0");
    if (type.value !== "market" && !(Number(price.value) > 0)) problems.push(`Price: a ${type.value} order needs a price above 0`);
    if (problems.length > 0) return status.say(problems.join(" · "), "error");
    const body = {
      session_id: sessionId,
      symbol: symbol.value.trim().toUpperCase(),
      side: side.value as "buy" | "sell",
      order_type: type.value as "market" | "limit" | "stop",
      quantity: quantity.value,
      ...(type.value !== "market" ? { price: price.value } : {}),
    };
    try {
      const checked = unwrap(await api.POST("/api/v1/trading/orders/validate", { body }));
      if (!checked.valid) return status.say(`Not placed: ${checked.denials.map((d) => `${d.reason}: ${d.message}`).join(" · ")}`, "error");
      const placed = unwrap(await api.POST("/api/v1/trading/orders", { body }));
      status.say(`Order ${placed.id} ${placed.status}.`);
    } catch (error) {
      status.fail(error);
    }
  });
  return form;
}

function alertsSection(id: string, zone: string): Promise<HTMLElement> {
  return panel("Alerts", async (section, status) => {
    const list = unwrap(await api.GET("/api/v1/sessions/{session_id}/alerts", { params: { path: { session_id: id }, query: { limit: 100 } as never } }));
    section.append(
      table(
        ["Time", "Level", "Type", "Message", ""],
        list.alerts.map((alert) => [
          marketTime(alert.timestamp, zone),
          alert.level,
          alert.type,
          alert.message,
          alert.acknowledged
            ? "acknowledged"
            : actionButton(
                "Acknowledge",
                async () => {
                  unwrap(
                    await api.POST("/api/v1/sessions/{session_id}/alerts/{alert_id}/acknowledge", {
                      params: { path: { session_id: id, alert_id: alert.alert_id } },
                    }),
                  );
                  return `Alert ${alert.alert_id} acknowledged.`;
                },
                status,
              ),
        ]),
        `${list.unacknowledged} unacknowledged of ${list.total}`,
      ),
    );
  });
}

function riskSection(id: string): Promise<HTMLElement> {
  return panel("Risk reports", async (section) => {
    const { reports } = unwrap(await api.GET("/api/v1/sessions/{session_id}/risk-reports", { params: { path: { session_id: id } } }));
    section.append(
      table(
        ["Channel", "Drawdown", "Halted", "Warnings"],
        reports.map((report) => [report.channel_id, percent(report.current_drawdown), report.is_halted ? "halted" : "no", report.warnings.join(" · ") || "–"]),
      ),
    );
  });
}

/** A titled section filled by `fill`; what fails is said on its status line. */
async function panel(title: string, fill: (section: HTMLElement, status: ReturnType<typeof statusLine>) => Promise<void>): Promise<HTMLElement> {
  const status = statusLine();
  const section = h("section", { "aria-label": title }, h("h2", {}, title), status);
  try {
    await fill(section, status);
  } catch (error) {
    status.fail(error);
  }
  return section;
}
