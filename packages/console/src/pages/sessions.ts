import type { components, SessionMessage, SessionStream } from "@tp/client";
import { api, client, href, unwrap } from "../app";
import { actionButton, field, fields, h, percent, statusLine, table, when } from "../ui";
import { presetSessionForm, strategySessionForm } from "./new-session";

type Session = components["schemas"]["TradingSessionResponse"];
type Order = components["schemas"]["TradingOrderResponse"];

/** /console/sessions: the caller's sessions, a new one from a strategy, and a new one from a channel preset. */
export async function sessionsPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  main.append(h("h1", {}, "Sessions"), status);
  main.append(h("div", { class: "columns" }, strategySessionForm(), await presetSessionForm()));
  try {
    const sessions = unwrap(await api.GET("/api/v1/trading/sessions")) as Session[];
    main.append(
      table(
        ["Session", "Mode", "Strategy", "Status", "Created"],
        sessions.map((s) => [
          h("a", { href: href(`/sessions/${encodeURIComponent(s.id)}`) }, s.session_name),
          s.trading_mode,
          s.strategy_name ?? "–",
          s.status,
          when(s.created_at),
        ]),
        `Sessions (${sessions.length})`,
      ),
    );
  } catch (error) {
    status.fail(error);
  }
}

const EVENT_LABELS: Record<string, string> = {
  order_submitted: "Order submitted",
  order_routed: "Order routed",
  order_filled: "Order filled",
  order_cancelled: "Order cancelled",
  order_rejected: "Order rejected",
};

/** /console/sessions/{session_id}: controls, live orders and fills from the socket, channels, alerts, the order ticket. */
export async function sessionPage(main: HTMLElement, params: Record<string, string>): Promise<() => void> {
  const id = params.session_id!;
  const path = { params: { path: { session_id: id } } };
  const status = statusLine();
  const live = h("p", { class: "badge", "data-socket": "connecting", role: "status" }, "Connecting…");
  const heading = h("h1", {}, `Session ${id}`);
  main.append(heading, live, status);
  let session: Session;
  try {
    session = unwrap(await api.GET("/api/v1/trading/sessions/{session_id}", path)) as Session;
  } catch (error) {
    status.fail(error);
    return () => {};
  }
  heading.textContent = session.session_name;
  const state = h("span", { "data-field": "status" }, session.status);
  main.append(
    h("p", { class: "muted" }, `${session.trading_mode} · ${session.strategy_name ?? "no strategy"} · status `, state),
    h(
      "div",
      { class: "row" },
      (["start", "pause", "resume", "stop"] as const).map((action) =>
        actionButton(
          action[0]!.toUpperCase() + action.slice(1),
          async () => {
            const answer = unwrap(await api.POST(`/api/v1/trading/sessions/{session_id}/${action}`, path)) as { status?: string; message?: string };
            if (answer.status) state.textContent = answer.status;
            return answer.message ?? `${action}: ${answer.status ?? "done"}`;
          },
          status,
        ),
      ),
    ),
  );

  // Orders: the stored page first, then every order event from the socket updates its row.
  const orders = new Map<string, Partial<Order> & { id: string }>();
  const ordersBody = h("tbody", {});
  const orderRows = () =>
    ordersBody.replaceChildren(
      ...[...orders.values()].reverse().map((o) =>
        h(
          "tr",
          { "data-order": o.id },
          [
            when(o.submitted_at),
            o.symbol,
            o.side,
            o.exit_reason ? `${o.order_type} · ${o.exit_reason.replace("_", " ")}` : o.order_type,
            o.quantity,
            o.status,
            o.filled_price ?? o.price ?? "–",
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

  const onMessage = (message: SessionMessage) => {
    const data = (message as { data?: Record<string, unknown> }).data ?? {};
    const type = message.type as string;
    if (type.startsWith("order_")) {
      const orderId = String(data.order_id ?? data.id ?? "");
      if (orderId) {
        const known = orders.get(orderId) ?? { id: orderId };
        orders.set(orderId, {
          ...known,
          symbol: (data.symbol as string) ?? known.symbol,
          side: (data.side as Order["side"]) ?? known.side,
          quantity: (data.quantity as string) ?? known.quantity,
          submitted_at: known.submitted_at ?? (data.event_time as string),
          status: type.replace("order_", "") as Order["status"],
          filled_price: (data.fill_price as string) ?? (data.price as string) ?? known.filled_price,
        });
        orderRows();
      }
    }
    if (type === "pong") return;
    const item = h(
      "li",
      { "data-type": type },
      h("time", {}, when((data.event_time as string) ?? (message as { timestamp?: string }).timestamp)),
      " ",
      EVENT_LABELS[type] ?? type,
      " ",
      [data.symbol, data.side, data.quantity].filter(Boolean).join(" "),
    );
    events.prepend(item);
    while (events.children.length > 200) events.lastChild!.remove();
  };
  let stream: SessionStream | undefined;
  try {
    stream = await client.followSession(id, {
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
    });
  } catch (error) {
    status.fail(error);
  }

  main.append(orderTicket(id), await channelsSection(id), await riskSection(id), await alertsSection(id), await historySection(id));
  return () => stream?.close();
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

function channelsSection(id: string): Promise<HTMLElement> {
  return panel("Channels", async (section, status) => {
    const list = unwrap(await api.GET("/api/v1/sessions/{session_id}/channels", { params: { path: { session_id: id } } }));
    const channels = list.channels as unknown as Record<string, unknown>[];
    if (channels.length === 0) section.append(h("p", { class: "muted" }, "This session runs one strategy, no channels."));
    section.append(
      table(
        ["Channel", "Type", "Status", "Capital", "Figures", "Actions"],
        channels.map((channel) => {
          const channelId = String(channel.channel_id);
          const params = { params: { path: { session_id: id, channel_id: channelId } } };
          return [
            channelId,
            String(channel.channel_type ?? "–"),
            `${String(channel.status)}${channel.is_halted ? " (halted)" : ""}`,
            String(channel.capital_allocation ?? "–"),
            Object.entries((channel.metrics ?? {}) as Record<string, unknown>)
              .filter(([, value]) => typeof value === "number" || typeof value === "string")
              .slice(0, 6)
              .map(([name, value]) => `${name.replace(/_/g, " ")} ${String(value)}`)
              .join(" · ") || "–",
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
                    return answer.message ?? `Channel ${channelId}: ${answer.status ?? action}`;
                  },
                  status,
                ),
              ),
            ),
          ];
        }),
      ),
    );
  });
}

function alertsSection(id: string): Promise<HTMLElement> {
  return panel("Alerts", async (section, status) => {
    const list = unwrap(await api.GET("/api/v1/sessions/{session_id}/alerts", { params: { path: { session_id: id }, query: { limit: 100 } as never } }));
    section.append(
      table(
        ["Time", "Level", "Type", "Message", ""],
        list.alerts.map((alert) => [
          when(alert.timestamp),
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

function historySection(id: string): Promise<HTMLElement> {
  return panel("Configuration history", async (section, status) => {
    const { history, current_version } = unwrap(await api.GET("/api/v1/sessions/{session_id}/config/history", { params: { path: { session_id: id } } }));
    section.append(
      table(
        ["Version", "When", "By", "Changes", ""],
        history.map((version) => [
          `${version.version}${version.is_current ? " (current)" : version.is_pending ? " (pending)" : ""}`,
          when(version.timestamp),
          version.changed_by,
          Object.keys(version.changes).join(", ") || "–",
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
