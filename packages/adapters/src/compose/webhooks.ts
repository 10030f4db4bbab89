/**
 * The builders of users' webhooks (docs/security.md "Webhooks"): the API's side, the delivery
 * worker's side (signing, sending through the egress rules, retrying), and the notification hook's
 * deps (users' enabled webhooks from a short-lived cache, deliveries to their queue).
 */
import type { DeliveryDeps, NotifierDeps, WebhookDeps } from "@tp/core/webhooks/index";
import { AesGcmSecretBox } from "../crypto/aes-gcm-secret-box";
import { EgressPolicy } from "../net/egress";
import { EgressDestinations, HttpWebhookSender } from "../net/webhook-sender";
import { DynamoBrokerNetworkStore } from "../stores/broker-network-store";
import { CachedWebhookLists, DynamoWebhookStore } from "../stores/webhook-store";
import { type ServiceContext, once } from "./context";
import { jobs } from "./platform";

function webhookStore(c: ServiceContext): DynamoWebhookStore {
  return once(c, webhookStore, () => new DynamoWebhookStore(c.db));
}

function webhookLists(c: ServiceContext): CachedWebhookLists {
  return once(c, webhookLists, () => new CachedWebhookLists(webhookStore(c)));
}

/** The broker tests' egress rules (docs/security.md "Outbound connections"): the deployment's allowed hosts and the administrator's, read at each check. */
function egress(c: ServiceContext): EgressPolicy {
  return once(c, egress, () => {
    const network = new DynamoBrokerNetworkStore(c.db);
    return new EgressPolicy(async () => [...c.config.brokerAllowedHosts, ...((await network.get())?.allowed_hosts ?? [])]);
  });
}

function webhookSecrets(c: ServiceContext): AesGcmSecretBox {
  return once(c, webhookSecrets, () => new AesGcmSecretBox(c.config.encryptionKey));
}

export function webhooks(c: ServiceContext): WebhookDeps {
  return once(c, webhooks, () => ({
    store: webhookStore(c),
    secrets: webhookSecrets(c),
    destinations: new EgressDestinations(egress(c)),
    queue: jobs(c),
    now: c.now,
    onChanged: (userId: string) => webhookLists(c).forget(userId),
  }));
}

export function webhookDelivery(c: ServiceContext): DeliveryDeps {
  return once(c, webhookDelivery, () => ({
    store: webhookStore(c),
    secrets: webhookSecrets(c),
    sender: new HttpWebhookSender(egress(c)),
    queue: jobs(c),
    now: c.now,
  }));
}

/** The notification hook's deps: users' enabled webhooks from a short-lived cache, deliveries to their queue (timestamps on the wall clock). */
export function notifier(c: ServiceContext): NotifierDeps {
  return once(c, notifier, () => ({ enabledWebhooks: (userId: string) => webhookLists(c).enabledOf(userId), queue: jobs(c), now: c.now }));
}
