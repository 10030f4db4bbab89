import { randomUUID } from "node:crypto";
import type { JobQueue, LocalQueueName, QueueRecord } from "@tp/core/jobs";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";

interface QueuedMessage {
  queue: string;
  message_id: string;
  body: string;
  /** Epoch ms when the message may be received (again). */
  visible_at: number;
  receive_count: number;
  sent_at: number;
}

export interface TableQueueOptions {
  visibilityTimeoutMs: number;
  /** Receives after which a message moves to the dead-letter queue (SQS maxReceiveCount). */
  maxReceives: number;
}

let sent = 0;

/**
 * The local stand-in for SQS, kept in the table so queued work survives a restart: messages
 * become visible at `visible_at`, a receive hides them for the visibility timeout and counts
 * the receive, a deleted message is done, and one received `maxReceives` times moves to the
 * queue's dead-letter partition.
 */
export class TableQueue implements JobQueue {
  private readonly messages: Repository<QueuedMessage>;

  constructor(
    db: Db,
    private readonly now: () => number,
    readonly options: TableQueueOptions = { visibilityTimeoutMs: 60_000, maxReceives: 5 },
  ) {
    this.messages = new Repository<QueuedMessage>(db, {
      type: "QueuedMessage",
      key: (message) => Keys.queuedMessage(message.queue, message.visible_at, message.message_id),
    });
  }

  async send(queue: LocalQueueName, body: object, options: { delaySeconds?: number } = {}) {
    const now = this.now();
    await this.messages.put({
      queue,
      // Sent order within one instant: messages visible at the same time are received by id.
      message_id: `${String(++sent).padStart(12, "0")}-${randomUUID()}`,
      body: JSON.stringify(body),
      visible_at: now + (options.delaySeconds ?? 0) * 1000,
      receive_count: 0,
      sent_at: now,
    });
  }

  /**
   * Receives up to `max` visible messages, hiding each for the visibility timeout. The move to
   * a new sort key is one transaction conditioned on the old item, so two pollers never both get one.
   */
  async receive(queue: LocalQueueName, max = 10): Promise<QueueRecord[]> {
    const now = this.now();
    const page = await this.messages.query(Keys.queuePartition(queue), {
      between: Keys.queueVisibleRange(0, now),
      limit: max,
    });
    const received: QueueRecord[] = [];
    for (const message of page.items) {
      const claimed: QueuedMessage = {
        ...message,
        receive_count: message.receive_count + 1,
        visible_at: now + this.options.visibilityTimeoutMs,
      };
      if (message.receive_count >= this.options.maxReceives) {
        await this.messages.moveIfPresent(message, { ...message, queue: Keys.deadLetterQueue(queue) });
        continue;
      }
      if (await this.messages.moveIfPresent(message, claimed)) {
        received.push({
          messageId: this.receiptOf(claimed),
          body: claimed.body,
          attributes: { ApproximateReceiveCount: String(claimed.receive_count) },
        });
      }
    }
    return received;
  }

  /**
   * Makes every message received but not deleted visible again at once (delayed messages keep
   * their delay). Only for a runtime that is the queue's sole consumer, at its start: whatever
   * was in flight belonged to its previous life, so the work resumes now rather than when the
   * visibility timeout runs out. Returns how many were released.
   */
  async releaseInFlight(queue: LocalQueueName): Promise<number> {
    const now = this.now();
    const later = await this.messages.queryAll(Keys.queuePartition(queue), { between: Keys.queueVisibleRange(now + 1, Number.MAX_SAFE_INTEGER) });
    let released = 0;
    for (const message of later) {
      if (message.receive_count === 0) continue;
      if (await this.messages.moveIfPresent(message, { ...message, visible_at: now })) released++;
    }
    return released;
  }

  /** Deletes a received message (the worker finished it). */
  async delete(receipt: string): Promise<void> {
    const { queue, visibleAt, messageId } = this.parseReceipt(receipt);
    await this.messages.delete(Keys.queuedMessage(queue, visibleAt, messageId));
  }

  /** Messages waiting or in flight, and those dead-lettered. */
  async depth(queue: LocalQueueName): Promise<{ pending: number; deadLetter: number }> {
    const pending = await this.messages.queryAll(Keys.queuePartition(queue));
    const dead = await this.messages.queryAll(Keys.queuePartition(Keys.deadLetterQueue(queue)));
    return { pending: pending.length, deadLetter: dead.length };
  }

  /** The earliest time any message of the queue becomes visible, for the poller's sleep. */
  async nextVisibleAt(queue: LocalQueueName): Promise<number | undefined> {
    const page = await this.messages.query(Keys.queuePartition(queue), { limit: 1 });
    return page.items[0]?.visible_at;
  }

  // The receipt names the item's current key, as an SQS receipt handle names one receive.
  private receiptOf(message: QueuedMessage): string {
    return `${message.queue}|${message.visible_at}|${message.message_id}`;
  }

  private parseReceipt(receipt: string) {
    const [queue, visibleAt, messageId] = receipt.split("|");
    return { queue: queue!, visibleAt: Number(visibleAt), messageId: messageId! };
  }
}
