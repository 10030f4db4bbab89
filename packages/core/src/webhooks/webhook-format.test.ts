import { describe, expect, it } from "vitest";
import { deliveriesOf, sessionEvents } from "./notify";
import { bodyOf, headersOf, signatureOf, verifySignature } from "./webhook-format";
import type { DeliveryMessage, StoredWebhook } from "./webhook-model";

const message = (overrides: Partial<DeliveryMessage> = {}): DeliveryMessage => ({
  delivery_id: "1700000000000-abcdef012345",
  webhook_id: "w1",
  user_id: "u1",
  attempt: 1,
  kind: "fill",
  occurred_at: "2024-03-15T14:31:00.000Z",
  session_id: "s1",
  text: "Fill: BUY 10 AAPL.US at 187.32 USD (channel trend), session s1",
  data: { type: "order_filled", symbol: "AAPL.US" },
  ...overrides,
});

const webhook = (overrides: Partial<StoredWebhook> = {}): StoredWebhook => ({
  id: "w1",
  user_id: "u1",
  name: "desk",
  url_sealed: "",
  url_hint: "https://example.com/hooks",
  event_kinds: ["fill"],
  format: "json",
  chat_id: null,
  enabled: true,
  secret_sealed: "",
  created_at: "2024-01-01T00:00:00.000Z",
  updated_at: "2024-01-01T00:00:00.000Z",
  version: 1,
  ...overrides,
});

describe("webhook bodies", () => {
  it("sends Slack's incoming-webhook body: the event's text alone", () => {
    expect(JSON.parse(bodyOf("slack", message(), null))).toEqual({ text: "Fill: BUY 10 AAPL.US at 187.32 USD (channel trend), session s1" });
  });

  it("sends the Telegram Bot API's sendMessage body: the webhook's chat and the text", () => {
    expect(JSON.parse(bodyOf("telegram", message(), "-1001234"))).toEqual({
      chat_id: "-1001234",
      text: "Fill: BUY 10 AAPL.US at 187.32 USD (channel trend), session s1",
    });
  });

  it("sends the event with its delivery id as json", () => {
    expect(JSON.parse(bodyOf("json", message(), null))).toEqual({
      id: "1700000000000-abcdef012345",
      kind: "fill",
      occurred_at: "2024-03-15T14:31:00.000Z",
      session_id: "s1",
      text: "Fill: BUY 10 AAPL.US at 187.32 USD (channel trend), session s1",
      data: { type: "order_filled", symbol: "AAPL.US" },
    });
  });

  it("signs timestamp.body with HMAC-SHA256, which the receiver's check accepts within its tolerance only", () => {
    const body = bodyOf("json", message(), null);
    const headers = headersOf("whsec_test", message(), body, 1_700_000_000_500);
    expect(headers["X-TP-Timestamp"]).toBe("1700000000");
    expect(headers["X-TP-Signature"]).toBe(signatureOf("whsec_test", 1_700_000_000, body));
    expect(signatureOf("key", 1, "{}")).toBe("v1=1ba6b8171186efc613e8bcc0cbdab2748f24984d7c5a84faa2637afa0e40d224");
    expect(verifySignature("whsec_test", "1700000000", body, headers["X-TP-Signature"]!, 1_700_000_100_000)).toBe(true);
    expect(verifySignature("whsec_test", "1700000000", `${body} `, headers["X-TP-Signature"]!, 1_700_000_100_000)).toBe(false);
    expect(verifySignature("whsec_test", "1700000000", body, headers["X-TP-Signature"]!, 1_700_001_000_000)).toBe(false);
  });
});

describe("notification events of a session's stream", () => {
  const at = "2024-03-15T14:31:00.000Z";
  it("makes a fill, an alert by level, a mismatch, a risk event, one session change of many channel events and a kill switch's trip", () => {
    const events = sessionEvents("s1", [
      { type: "order_filled", data: { side: "buy", quantity: 10, symbol: "AAPL.US", price: "187.32", currency: "USD", channel_id: "trend", event_time: at } },
      { type: "channel_update", data: { channel_id: "trend" } },
      { type: "alert", data: { level: "warning", reason: "X", message: "careful", event_time: at } },
      { type: "alert", data: { level: "critical", reason: "VENUE_MISMATCH", message: "books differ", event_time: at } },
      { type: "risk_event", data: { kind: "limit_breached", message: "daily loss", channel_id: "trend", event_time: at } },
      {
        type: "channel_status",
        data: { channel_id: "a", status: "stopped", previous: "running", session_action: "stop", session_status: "stopped", event_time: at },
      },
      {
        type: "channel_status",
        data: { channel_id: "b", status: "stopped", previous: "running", session_action: "stop", session_status: "stopped", event_time: at },
      },
      { type: "channel_status", data: { channel_id: "c", status: "paused", previous: "running", event_time: at } },
      { type: "kill_switch", data: { state: "tripped", scope: "user", by: "u1", reason: "runaway bot", event_time: at } },
      { type: "log", data: { message: "quiet" } },
    ]);
    expect(events.map((e) => [e.kinds, e.text])).toEqual([
      [["fill"], "Fill: BUY 10 AAPL.US at 187.32 USD (channel trend), session s1"],
      [["alert_warning"], "Alert (warning, X): careful, session s1"],
      [["reconciliation_mismatch", "alert_critical"], "Alert (critical, VENUE_MISMATCH): books differ, session s1"],
      [["risk_event"], "Risk (limit_breached): daily loss (channel trend), session s1"],
      [["session_status"], "Session s1: stop, now stopped"],
      [["channel_status"], "Channel c of session s1: running -> paused"],
      [["kill_switch"], "Kill switch (user) tripped by u1: runaway bot, session s1"],
    ]);
  });

  it("queues an event once per enabled webhook subscribed to one of its kinds, as the most specific it subscribes to", () => {
    const [mismatch] = sessionEvents("s1", [{ type: "alert", data: { level: "critical", reason: "SLEEVE_MISMATCH", message: "m", event_time: at } }]);
    const hooks = [
      webhook({ id: "alerts", event_kinds: ["alert_critical"] }),
      webhook({ id: "both", event_kinds: ["alert_critical", "reconciliation_mismatch"] }),
      webhook({ id: "fills", event_kinds: ["fill"] }),
      webhook({ id: "off", event_kinds: ["alert_critical"], enabled: false }),
    ];
    expect(deliveriesOf("u1", hooks, [mismatch!], 0).map((m) => [m.webhook_id, m.kind, m.attempt])).toEqual([
      ["alerts", "alert_critical", 1],
      ["both", "reconciliation_mismatch", 1],
    ]);
  });
});
