/**
 * The session page's sections below its live view, each loaded on its own and saying on its own
 * status line what failed (`panel`): the channels with their status and figures kept up to date
 * from the socket, the configuration history with its rollbacks, the manual order ticket, the
 * alerts with their acknowledgement, and the risk reports. session-page.ts lays them out.
 */
import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { isUuid, marketTime, percent, signedMoney } from "../format";
import { actionButton, field, fields, h, statusLine, table } from "../ui";
import type { Data } from "./session-events";

type User = components["schemas"]["UserResponse"];

/** A channel's brief figures: its P&L, win rate and trades, formatted. */
const briefFigures = (metrics: Data, currency: string): string =>
  `P&L ${signedMoney((metrics.total_pnl as number) ?? 0, currency)} · win rate ${percent((metrics.win_rate as number) ?? 0)} · ${String(metrics.total_trades ?? 0)} trades`;

/**
 * The channels with their status and figures, kept up to date from the socket (`follow`): a
 * `channel_status` or `channel_update` sets the status, `channel_metrics` the figures; no reload.
 */
export async function channelsSection(id: string, currency: string): Promise<{ element: HTMLElement; follow(type: string, data: Data): void }> {
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

export function historySection(id: string, zone: string): Promise<HTMLElement> {
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
export function orderTicket(sessionId: string): HTMLElement {
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

export function alertsSection(id: string, zone: string): Promise<HTMLElement> {
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

export function riskSection(id: string): Promise<HTMLElement> {
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
