import { createHmac, timingSafeEqual } from "node:crypto";
import type { DeliveryMessage, WebhookFormat } from "./webhook-model";

/**
 * What a delivery sends (docs/security.md "Webhooks"): the body in the webhook's format and the
 * headers, signed. The signature is HMAC-SHA256 of `<timestamp>.<body>` with the webhook's secret,
 * hex, sent as `X-TP-Signature: v1=<hex>` beside `X-TP-Timestamp: <unix seconds>`.
 */

export const SIGNATURE_HEADER = "X-TP-Signature";
export const TIMESTAMP_HEADER = "X-TP-Timestamp";
export const DELIVERY_HEADER = "X-TP-Delivery";
export const EVENT_HEADER = "X-TP-Event";

/** The message's event as a webhook of `format` receives it (its body, before signing). */
export function bodyOf(format: WebhookFormat, message: DeliveryMessage, chatId: string | null): string {
  switch (format) {
    case "slack":
      // Slack's incoming webhooks take `{"text": ...}` (mrkdwn).
      return JSON.stringify({ text: message.text });
    case "telegram":
      // The Bot API's sendMessage: the chat and the text (plain: no parse_mode, so nothing in the text is read as markup).
      return JSON.stringify({ chat_id: chatId, text: message.text });
    case "json":
      return JSON.stringify({
        id: message.delivery_id,
        kind: message.kind,
        occurred_at: message.occurred_at,
        session_id: message.session_id,
        text: message.text,
        data: message.data,
      });
  }
}

/** `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<body>` with the secret. */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The headers of one try: the signature over this try's timestamp (unix seconds), the delivery's id and kind. */
export function headersOf(secret: string, message: DeliveryMessage, body: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "Content-Type": "application/json",
    "User-Agent": "trading-platform-webhooks/1",
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: signatureOf(secret, timestamp, body),
    [DELIVERY_HEADER]: message.delivery_id,
    [EVENT_HEADER]: message.kind,
  };
}

/**
 * What a receiver does (the example in docs/security.md): recompute the signature over the
 * timestamp and the raw body, compare in constant time, and refuse a timestamp too far from its
 * clock (a replayed delivery).
 */
export function verifySignature(secret: string, timestamp: string, body: string, signature: string, nowMs: number, toleranceSeconds = 300): boolean {
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(nowMs / 1000 - seconds) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, seconds, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
