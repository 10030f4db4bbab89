import type { FakeAccount, FakeOrder } from "./account";
import { type Connection, type Gateway, SocketError, SocketStatus } from "./gateway";
import type { FakeMarket } from "./market";
import { Command, CONTENT_JSON, DISPATCH_DIRECT, Notification, Sub, SubResponse, Unsub, UnsubResponse } from "./messages";
import { decode, encode } from "./protobuf";
import { orderChangedJson } from "./rest-shapes";

/** The one topic of the trade gateway: the account's private notifications (order changes). */
export const PRIVATE_TOPIC = "private";

/**
 * The trade gateway: subscribing to topics (Sub 16 / Unsub 17) and the order-changed
 * notification (18): a protobuf `Notification` on topic "private" whose `data` is the JSON
 * `{"event":"order_changed_lb","data":{...order...}}` the SDK hands to `setOnOrderChanged`.
 */
export class TradeService {
  constructor(
    private readonly account: FakeAccount,
    private readonly market: FakeMarket,
  ) {}

  handle(connection: Connection, command: number, body: Buffer): Buffer {
    switch (command) {
      case Command.tradeSub: {
        const { topics } = decode<{ topics: string[] }>(Sub, body);
        const success = topics.filter((t) => t === PRIVATE_TOPIC);
        for (const topic of success) connection.topics.add(topic);
        const fail = topics.filter((t) => t !== PRIVATE_TOPIC).map((topic) => ({ topic, reason: "invalid topic" }));
        return encode(SubResponse, { success, fail, current: [...connection.topics] });
      }
      case Command.tradeUnsub: {
        const { topics } = decode<{ topics: string[] }>(Unsub, body);
        for (const topic of topics) connection.topics.delete(topic);
        return encode(UnsubResponse, { current: [...connection.topics] });
      }
      default:
        throw new SocketError(SocketStatus.badRequest, 1, `the fake does not answer trade command ${command}`);
    }
  }

  /** The notification for an order's change, as bytes of the protobuf `Notification`. */
  notification(order: FakeOrder): Buffer {
    const json = JSON.stringify({ event: "order_changed_lb", data: orderChangedJson(order, this.account, this.market) });
    return encode(Notification, { topic: PRIVATE_TOPIC, content_type: CONTENT_JSON, dispatch_type: DISPATCH_DIRECT, data: Buffer.from(json) });
  }

  /**
   * Pushes an order change to every socket subscribed to the private topic. Deferred a turn, so a
   * change made while answering a submit goes out after that answer, as LongPort's does.
   */
  deliver(gateway: Gateway, order: FakeOrder): void {
    const body = this.notification(order);
    setImmediate(() => {
      for (const connection of gateway.authenticated()) if (connection.topics.has(PRIVATE_TOPIC)) gateway.push(connection, Command.tradeNotify, body);
    });
  }
}
