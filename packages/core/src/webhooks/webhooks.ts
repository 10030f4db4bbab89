import { randomBytes } from "node:crypto";
import { ValidationError, conflict, notFound, parseOrThrow, type ValidationIssue } from "../errors";
import { iso } from "../util/time";
import type { Actor } from "../users";
import { newDeliveryId } from "./notify";
import {
  DeliveryQuery,
  MAX_WEBHOOKS_PER_USER,
  WEBHOOK_QUEUE,
  WebhookCreate,
  WebhookUpdate,
  type Delivery,
  type DeliveryMessage,
  type StoredDelivery,
  type StoredWebhook,
  type WebhookCreated,
  type WebhookDeps,
  type WebhookResponse,
} from "./webhook-model";

/** The contexts sealed values are bound to: a sealed secret or URL moved to another webhook does not open. */
export const secretContext = (id: string) => `webhook-secret:${id}`;
export const urlContext = (id: string) => `webhook-url:${id}`;

const webhookNotFound = (id: string) => notFound("WEBHOOK_NOT_FOUND", `Webhook ${id} does not exist`);

/** What lists show of a URL: its scheme, host (and port) and first path segment; the rest may be a token. */
export function urlHint(url: URL): string {
  const first = url.pathname.split("/").filter(Boolean)[0];
  const more = url.pathname.split("/").filter(Boolean).length > 1 || url.search !== "";
  return `${url.protocol}//${url.host}${first ? `/${first}` : ""}${more ? "/…" : ""}`;
}

/**
 * The URL's problems, each located at `loc`: not a URL, not http(s), carrying credentials, or a
 * destination the egress rules refuse (loopback, private, link-local... unless allowed).
 */
async function urlProblems(deps: WebhookDeps, value: string, loc: string[]): Promise<{ url?: URL; problems: ValidationIssue[] }> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problems: [{ loc, msg: "Not a URL", type: "url_invalid" }] };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { problems: [{ loc, msg: "The URL must be http or https", type: "url_scheme" }] };
  if (url.username || url.password) return { problems: [{ loc, msg: "The URL must not carry a user name or password", type: "url_credentials" }] };
  const refusal = await deps.destinations.refusal(url.hostname);
  if (refusal) return { problems: [{ loc, msg: refusal, type: "destination_refused" }] };
  return { url, problems: [] };
}

function chatProblems(format: string, chatId: string | null | undefined, loc: string[]): ValidationIssue[] {
  if (format === "telegram" && !chatId) return [{ loc, msg: "A telegram webhook needs the chat_id to send to", type: "missing" }];
  if (format !== "telegram" && chatId) return [{ loc, msg: "chat_id is for the telegram format only", type: "invalid_value" }];
  return [];
}

export const Webhooks = {
  toResponse(webhook: StoredWebhook): WebhookResponse {
    const { id, name, url_hint, event_kinds, format, chat_id, enabled, created_at, updated_at } = webhook;
    return { id, name, url: url_hint, event_kinds, format, chat_id, enabled, created_at, updated_at };
  },

  /** Registers a webhook for the caller; the answer carries its secret, which is never shown again. 422 lists every problem, the URL's destination included. */
  async create(deps: WebhookDeps, actor: Actor, input: unknown): Promise<WebhookCreated> {
    const body = parseOrThrow(WebhookCreate, input, ["body"]);
    const { url, problems } = await urlProblems(deps, body.url, ["body", "url"]);
    problems.push(...chatProblems(body.format, body.chat_id, ["body", "chat_id"]));
    if (problems.length) throw new ValidationError(problems);
    const existing = await deps.store.listByUser(actor.id);
    if (existing.length >= MAX_WEBHOOKS_PER_USER) throw conflict("TOO_MANY_WEBHOOKS", `A user holds at most ${MAX_WEBHOOKS_PER_USER} webhooks`);
    const id = randomBytes(8).toString("hex");
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    const now = iso(deps.now());
    const webhook: StoredWebhook = {
      id,
      user_id: actor.id,
      name: body.name ?? url!.host,
      url_sealed: deps.secrets.seal(url!.href, urlContext(id)),
      url_hint: urlHint(url!),
      event_kinds: body.event_kinds,
      format: body.format,
      chat_id: body.chat_id ?? null,
      enabled: body.enabled,
      secret_sealed: deps.secrets.seal(secret, secretContext(id)),
      created_at: now,
      updated_at: now,
      version: 1,
    };
    await deps.store.create(webhook);
    deps.onChanged?.(actor.id);
    return { ...Webhooks.toResponse(webhook), secret };
  },

  async list(deps: WebhookDeps, actor: Actor): Promise<WebhookResponse[]> {
    return (await deps.store.listByUser(actor.id)).map(Webhooks.toResponse);
  },

  /** One of the caller's webhooks (another user's is as unknown as a missing one: 404). */
  async get(deps: Pick<WebhookDeps, "store">, actor: Actor, id: string): Promise<StoredWebhook> {
    const webhook = await deps.store.get(actor.id, id);
    if (!webhook) throw webhookNotFound(id);
    return webhook;
  },

  /** Changes what the body names; a new URL is checked as at creation. */
  async update(deps: WebhookDeps, actor: Actor, id: string, input: unknown): Promise<WebhookResponse> {
    const body = parseOrThrow(WebhookUpdate, input, ["body"]);
    const before = await Webhooks.get(deps, actor, id);
    const checked = body.url !== undefined ? await urlProblems(deps, body.url, ["body", "url"]) : { problems: [] as ValidationIssue[] };
    const format = body.format ?? before.format;
    const chatId = body.chat_id !== undefined ? body.chat_id : before.chat_id;
    const problems = [...checked.problems, ...chatProblems(format, chatId, ["body", "chat_id"])];
    if (problems.length) throw new ValidationError(problems);
    const after: StoredWebhook = {
      ...before,
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(checked.url ? { url_sealed: deps.secrets.seal(checked.url.href, urlContext(id)), url_hint: urlHint(checked.url) } : {}),
      ...(body.event_kinds !== undefined ? { event_kinds: body.event_kinds } : {}),
      ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      format,
      chat_id: chatId ?? null,
      updated_at: iso(deps.now()),
      version: before.version + 1,
    };
    await deps.store.update(after, before.version);
    deps.onChanged?.(actor.id);
    return Webhooks.toResponse(after);
  },

  /** A new secret, shown in this answer only; deliveries from now on are signed with it. */
  async rotateSecret(deps: WebhookDeps, actor: Actor, id: string): Promise<WebhookCreated> {
    const before = await Webhooks.get(deps, actor, id);
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    const after: StoredWebhook = {
      ...before,
      secret_sealed: deps.secrets.seal(secret, secretContext(id)),
      updated_at: iso(deps.now()),
      version: before.version + 1,
    };
    await deps.store.update(after, before.version);
    return { ...Webhooks.toResponse(after), secret };
  },

  async remove(deps: WebhookDeps, actor: Actor, id: string): Promise<void> {
    if (!(await deps.store.delete(actor.id, id))) throw webhookNotFound(id);
    deps.onChanged?.(actor.id);
  },

  /** Queues a `test` delivery (sent by the delivery worker, signed and retried as any other, enabled or not). */
  async test(deps: WebhookDeps, actor: Actor, id: string): Promise<{ delivery_id: string; status: "queued"; message: string }> {
    const webhook = await Webhooks.get(deps, actor, id);
    const nowMs = deps.now();
    const message: DeliveryMessage = {
      delivery_id: newDeliveryId(nowMs),
      webhook_id: webhook.id,
      user_id: actor.id,
      attempt: 1,
      kind: "test",
      occurred_at: iso(nowMs),
      session_id: null,
      text: `Test delivery of webhook ${webhook.name}`,
      data: { webhook_id: webhook.id },
    };
    await deps.queue.send(WEBHOOK_QUEUE, message);
    return { delivery_id: message.delivery_id, status: "queued", message: "Queued: GET …/deliveries shows each try" };
  },

  /** The webhook's deliveries, newest first, each with every try. */
  async deliveries(deps: Pick<WebhookDeps, "store">, actor: Actor, id: string, input: unknown): Promise<{ items: Delivery[]; next_cursor: string | null }> {
    const query = parseOrThrow(DeliveryQuery, input, ["query"]);
    await Webhooks.get(deps, actor, id);
    const page = await deps.store.listDeliveries(id, query.limit, query.cursor);
    return { items: page.items.map(shownDelivery), next_cursor: page.cursor ?? null };
  },
};

export function shownDelivery(delivery: StoredDelivery): Delivery {
  const { user_id: _user, expires_at: _expires, ...shown } = delivery;
  return shown;
}
