import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { actionButton, field, fields, h, statusLine, table, when } from "../ui";

type SwitchState = components["schemas"]["KillSwitchState"];
type SwitchStatus = components["schemas"]["KillSwitchStatus"];

/**
 * /console/kill-switch: the caller's kill switch and the stage's (docs/security.md "Kill switch"):
 * whether trading is halted, who tripped it, when and why, the sessions paused and the orders
 * cancelled (a cancel the broker keeps failing shown), and the buttons that trip and release them.
 */
export async function killSwitchPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  const banner = h("div", { "aria-live": "polite" });
  const panels = h("div", {});
  const reason = h("input", { name: "reason", autocomplete: "off", placeholder: "why (shown with every refused order)" });
  main.append(
    h("h1", {}, "Kill switch"),
    h(
      "p",
      { class: "muted" },
      "Tripping halts trading at once: every running session paused, every open order cancelled at its broker, new orders refused until the switch is released.",
    ),
    banner,
    status,
    panels,
  );
  const admin = await api
    .GET("/api/v1/me")
    .then((answer) => (unwrap(answer) as { user_type?: string }).user_type === "admin")
    .catch(() => false);
  const show = (state: SwitchStatus) => {
    banner.replaceChildren(
      state.active
        ? h("p", { class: "status error", role: "alert" }, "Trading is halted: new orders are refused (409 KILL_SWITCH_ACTIVE).")
        : h("p", { class: "status ok" }, "Trading is allowed."),
    );
    panels.replaceChildren(panel("Your switch", "user", state.user), panel("The stage's switch", "stage", state.stage));
  };
  const refresh = async () => show(unwrap(await api.GET("/api/v1/kill-switch")));
  const panel = (title: string, scope: "user" | "stage", state: SwitchState) => {
    const mayAct = scope === "user" || admin;
    return h(
      "section",
      { class: "card", "aria-label": title },
      h("h2", {}, title),
      h("p", {}, h("strong", {}, state.active ? "Tripped" : "Released")),
      state.trip
        ? h(
            "p",
            { class: "muted" },
            `${state.active ? "Tripped" : "Last tripped"} by ${state.trip.tripped_by} at ${when(state.trip.tripped_at)}: ${state.trip.reason}`,
            state.released_at ? ` (released by ${state.released_by} at ${when(state.released_at)})` : "",
          )
        : h("p", { class: "muted" }, "Never tripped."),
      state.sessions_paused.length ? h("p", {}, `Sessions paused: ${state.sessions_paused.join(", ")}`) : null,
      state.orders.length
        ? table(
            ["Session", "Order", "Symbol", "Side", "Status", "Cancel"],
            state.orders.map((order) => [
              order.session_id,
              order.order_id,
              order.symbol,
              order.side,
              order.status,
              order.cancel_failed
                ? `failed ${order.cancel_failed.attempts} times: ${order.cancel_failed.error}`
                : order.cancel_requested
                  ? "asked of the broker"
                  : "done",
            ]),
            `Orders cancelled (${state.orders.length})`,
          )
        : null,
      mayAct
        ? state.active
          ? actionButton(
              scope === "user" ? "Release my kill switch" : "Release the stage's kill switch",
              async () => {
                unwrap(await api.POST("/api/v1/kill-switch/release", { body: { scope } }));
                await refresh();
                return "Released: orders are accepted again. Resume the paused sessions when ready.";
              },
              status,
            )
          : actionButton(
              scope === "user" ? "Trip my kill switch" : "Trip the stage's kill switch",
              async () => {
                const tripped = unwrap(
                  await api.POST("/api/v1/kill-switch", { body: { scope, ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) } }),
                );
                await refresh();
                return `Tripped: ${tripped.sessions_paused.length} sessions paused, ${tripped.orders.length} orders being cancelled.`;
              },
              status,
            )
        : null,
    );
  };
  main.insertBefore(fields(field("Reason", reason, "Why you trip it")), panels);
  try {
    await refresh();
  } catch (error) {
    status.fail(error);
  }
}
