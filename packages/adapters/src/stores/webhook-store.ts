import { conflict } from "@tp/core/errors";
import type { StoredDelivery, StoredWebhook, WebhookStore } from "@tp/core/webhooks/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { Lru } from "../lru";

const changed = (id: string) => conflict("WEBHOOK_CHANGED", `Webhook ${id} was changed by another request; read it again`);

/**
 * Webhooks in their user's partition (`Keys.webhooksOfUser`: one Query lists them) and their
 * deliveries in the webhook's (`Keys.webhookDeliveries`, by delivery id, newest last; each item
 * expires, docs/data-model.md).
 */
export class DynamoWebhookStore implements WebhookStore {
  private readonly webhooks: Repository<StoredWebhook>;
  private readonly deliveries: Repository<StoredDelivery>;

  constructor(db: Db) {
    this.webhooks = new Repository<StoredWebhook>(db, { type: "Webhook", key: (webhook) => Keys.webhook(webhook.user_id, webhook.id) });
    this.deliveries = new Repository<StoredDelivery>(db, {
      type: "WebhookDelivery",
      key: (delivery) => Keys.webhookDelivery(delivery.webhook_id, delivery.id),
      expiresAt: (delivery) => delivery.expires_at,
    });
  }

  async create(webhook: StoredWebhook): Promise<void> {
    await this.webhooks.put(webhook, { ifAbsent: true, conflict: () => changed(webhook.id) });
  }

  get(userId: string, id: string) {
    return this.webhooks.get(Keys.webhook(userId, id));
  }

  async listByUser(userId: string) {
    const items = await this.webhooks.queryAll(Keys.webhooksOfUser(userId), { consistent: true });
    return items.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  }

  async update(webhook: StoredWebhook, expectedVersion: number): Promise<void> {
    await this.webhooks.replaceIf(webhook, "version", expectedVersion, () => changed(webhook.id));
  }

  async delete(userId: string, id: string): Promise<boolean> {
    return (await this.webhooks.delete(Keys.webhook(userId, id))) !== undefined;
  }

  getDelivery(webhookId: string, deliveryId: string) {
    return this.deliveries.get(Keys.webhookDelivery(webhookId, deliveryId));
  }

  async putDelivery(delivery: StoredDelivery): Promise<void> {
    await this.deliveries.put(delivery);
  }

  listDeliveries(webhookId: string, limit: number, cursor?: string) {
    return this.deliveries.query(Keys.webhookDeliveries(webhookId), { ascending: false, limit, cursor });
  }
}

/** How long a process trusts a user's webhook list it read (ms): a change made elsewhere reaches its notifications within this. */
export const WEBHOOK_LIST_TTL_MS = 30_000;

/**
 * The notifier's view of users' webhooks: each user's enabled ones, read at most once per
 * `WEBHOOK_LIST_TTL_MS` per process (a session's fills and alerts do not each read the table), and
 * read again at once after a change made in this process (`forget`).
 */
export class CachedWebhookLists {
  private readonly lists: Lru<string, Promise<StoredWebhook[]>>;

  constructor(
    private readonly store: Pick<WebhookStore, "listByUser">,
    private readonly ttlMs = WEBHOOK_LIST_TTL_MS,
  ) {
    this.lists = new Lru(10_000);
  }

  enabledOf(userId: string): Promise<StoredWebhook[]> {
    let list = this.lists.get(userId);
    if (!list) {
      list = this.store.listByUser(userId).then((all) => all.filter((webhook) => webhook.enabled));
      // A failed read is not kept: the next event reads again.
      list.catch(() => this.lists.delete(userId));
      this.lists.set(userId, list, { ttl: this.ttlMs });
    }
    return list;
  }

  forget(userId: string): void {
    this.lists.delete(userId);
  }
}
