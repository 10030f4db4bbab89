import { z } from "zod";
import { forbidden, parseOrThrow } from "../errors";
import type { Actor } from "../users";

/**
 * The hosts broker connection tests may reach although they resolve to loopback, private or
 * link-local addresses (an OpenD gateway on the operator's own network, a LongPort proxy):
 * set by an administrator, beside the deployment's `BROKER_ALLOWED_HOSTS`. docs/security.md.
 */
const Host = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9.:-]+$/, "a host name or an IP address (letters, digits, '.', ':' and '-')");

export const BrokerNetworkSettings = z
  .object({
    allowed_hosts: z
      .array(Host)
      .max(50)
      .refine((hosts) => new Set(hosts).size === hosts.length, "hosts must not repeat"),
  })
  .meta({ id: "BrokerNetworkSettings" });
export type BrokerNetworkSettings = z.infer<typeof BrokerNetworkSettings>;

export interface BrokerNetworkStore {
  get(): Promise<BrokerNetworkSettings | undefined>;
  put(settings: BrokerNetworkSettings): Promise<void>;
}

const adminOnly = (actor: Actor) => {
  if (actor.user_type !== "admin") throw forbidden("Only an administrator may see or change which private hosts broker tests may reach");
};

export const BrokerNetwork = {
  async get(store: BrokerNetworkStore, actor: Actor): Promise<BrokerNetworkSettings> {
    adminOnly(actor);
    return (await store.get()) ?? { allowed_hosts: [] };
  },

  async put(store: BrokerNetworkStore, actor: Actor, input: unknown): Promise<BrokerNetworkSettings> {
    adminOnly(actor);
    const settings = parseOrThrow(BrokerNetworkSettings, input, ["body"]);
    await store.put(settings);
    return settings;
  },
};
