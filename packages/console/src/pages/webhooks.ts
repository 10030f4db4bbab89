import type { components } from "@tp/client";
import { api, unwrap } from "../app";
import { actionButton, field, fields, h, onSubmit, statusLine, table, when } from "../ui";

type Webhook = components["schemas"]["WebhookResponse"];
type Delivery = components["schemas"]["WebhookDelivery"];
type Kind = Webhook["event_kinds"][number];
type Format = Webhook["format"];

const KINDS: [Kind, string][] = [
  ["alert_critical", "Critical alerts"],
  ["alert_warning", "Warning alerts"],
  ["alert_info", "Info alerts"],
  ["fill", "Fills"],
  ["session_status", "Session started, paused, resumed, stopped"],
  ["channel_status", "A channel's own state changes"],
  ["risk_event", "Risk events"],
  ["reconciliation_mismatch", "Reconciliation mismatches"],
  ["backtest_completed", "Backtest ended"],
  ["sweep_completed", "Sweep ended"],
  ["kill_switch", "Kill switch"],
];

/** A delivery's tries in words: `1: 500 (12 ms) · 2: 200 (8 ms)`. */
const triesOf = (delivery: Delivery) =>
  delivery.attempts.map((a) => `${a.attempt}: ${a.status_code ?? a.error ?? "no answer"} (${a.duration_ms} ms)`).join(" · ");

/** /console/webhooks: the caller's webhooks, a new one (its secret shown once), a test delivery and each webhook's deliveries with their tries. */
export async function webhooksPage(main: HTMLElement): Promise<void> {
  const status = statusLine();
  const list = h("div", {});
  const deliveries = h("section", { "aria-label": "Deliveries" });
  main.append(
    h("h1", {}, "Webhooks"),
    h("p", { class: "muted" }, "Webhooks tell a URL (yours, a Slack incoming webhook or a Telegram bot) what happens in your sessions, backtests and sweeps."),
    status,
  );
  let hooks: Webhook[] = [];

  const showDeliveries = async (hook: Webhook) => {
    const page = unwrap(await api.GET("/api/v1/webhooks/{webhook_id}/deliveries", { params: { path: { webhook_id: hook.id }, query: { limit: 20 } } }));
    deliveries.replaceChildren(
      h("h2", {}, `Deliveries of ${hook.name}`),
      page.items.length === 0
        ? h("p", { class: "muted" }, "No deliveries yet.")
        : table(
            ["When", "Kind", "Status", "Tries", "Next try", "Text"],
            page.items.map((d) => [when(d.created_at), d.kind, d.status, triesOf(d), when(d.next_attempt_at), d.text]),
            `Deliveries of ${hook.name} (newest first)`,
          ),
    );
  };

  const showList = () =>
    list.replaceChildren(
      hooks.length === 0
        ? h("p", { class: "muted" }, "No webhooks yet.")
        : table(
            ["Name", "URL", "Kinds", "Format", "Enabled", "", ""],
            hooks.map((hook) => [
              hook.name,
              h("code", {}, hook.url),
              hook.event_kinds.join(", "),
              hook.format,
              hook.enabled ? "yes" : "no",
              actionButton(
                `Test ${hook.name}`,
                async () => {
                  const queued = unwrap(await api.POST("/api/v1/webhooks/{webhook_id}/test", { params: { path: { webhook_id: hook.id } } }));
                  // The delivery worker sends it off the request: the list shows its first try shortly after.
                  setTimeout(() => void showDeliveries(hook).catch((error) => status.fail(error)), 1500);
                  return `Test delivery ${queued.delivery_id} queued.`;
                },
                status,
              ),
              actionButton(
                `Deliveries of ${hook.name}`,
                async () => {
                  await showDeliveries(hook);
                },
                status,
              ),
            ]),
            `Your webhooks (${hooks.length})`,
          ),
    );
  try {
    hooks = unwrap(await api.GET("/api/v1/webhooks")).items;
  } catch (error) {
    status.fail(error);
  }
  showList();
  main.append(
    list,
    deliveries,
    newWebhookForm((created) => {
      hooks = [created, ...hooks];
      showList();
    }),
  );
}

/** The form of a new webhook; its secret is shown under it once. */
function newWebhookForm(created: (hook: Webhook) => void): HTMLFormElement {
  const status = statusLine();
  const name = h("input", { name: "name", autocomplete: "off" });
  const url = h("input", { name: "url", type: "url", autocomplete: "off", placeholder: "https://hooks.slack.com/services/…" });
  const format = h(
    "select",
    { name: "format" },
    (["json", "slack", "telegram"] as Format[]).map((value) => h("option", { value }, value)),
  );
  const chat = h("input", { name: "chat_id", autocomplete: "off", placeholder: "telegram only" });
  const kinds = KINDS.map(([kind, label]) => ({
    kind,
    box: h("input", { type: "checkbox", name: `kind-${kind}`, checked: kind === "alert_critical" || kind === "fill" }),
    label,
  }));
  const shown = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "card", "aria-label": "New webhook", novalidate: true },
    h("h2", {}, "New webhook"),
    fields(
      field("Name", name, "What it is for"),
      field("URL", url, "http or https; private and loopback addresses only if an administrator allowed the host"),
      field("Format", format, "json (signed), slack or telegram"),
      field("Telegram chat id", chat, "The chat a telegram webhook sends to"),
    ),
    h(
      "fieldset",
      { name: "event_kinds" },
      h("legend", {}, "Events"),
      kinds.map(({ box, label }) => {
        box.id = `${box.name}-box`;
        return h("div", {}, box, h("label", { for: box.id }, label));
      }),
    ),
    h("button", { type: "submit" }, "Create webhook"),
    status,
    shown,
  );
  onSubmit(form, status, async () => {
    const answer = unwrap(
      await api.POST("/api/v1/webhooks", {
        body: {
          url: url.value.trim(),
          event_kinds: kinds.filter(({ box }) => box.checked).map(({ kind }) => kind),
          format: format.value as Format,
          enabled: true,
          ...(name.value.trim() ? { name: name.value.trim() } : {}),
          ...(chat.value.trim() ? { chat_id: chat.value.trim() } : {}),
        },
      }),
    );
    const { secret, ...listed } = answer;
    shown.replaceChildren(
      h(
        "div",
        { class: "card", role: "alert" },
        h("p", {}, h("strong", {}, "Copy this signing secret now: it is not shown again.")),
        h("code", { class: "secret", "aria-label": "The webhook's secret" }, secret),
        h("p", { class: "muted" }, 'Check X-TP-Signature with it: v1=HMAC-SHA256 of "<X-TP-Timestamp>.<body>".'),
      ),
    );
    name.value = "";
    url.value = "";
    created(listed);
    return `Webhook ${answer.name} created.`;
  });
  return form;
}
