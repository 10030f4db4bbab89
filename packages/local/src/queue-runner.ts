import type { BatchResult, QueueName, QueueRecord } from "@tp/core/jobs";
import type { TableQueue } from "@tp/adapters/queues/table-queue";
import { log } from "@tp/core/log";

/** An SQS event as Lambda delivers it (the fields the workers read). */
export interface QueueEvent {
  Records: (QueueRecord & { eventSource: "aws:sqs"; eventSourceARN: string; receiptHandle: string })[];
}

export type QueueHandler = (event: QueueEvent) => Promise<BatchResult>;

export interface LocalQueueRunnerOptions {
  /** Messages per batch of each queue (its event source's batch size, from the registry in the runtime); 5 otherwise. */
  batchSizes?: Partial<Record<QueueName, number>>;
  /** How long an idle queue waits before the next poll (500 ms unless given). */
  idlePollMs?: number;
}

/**
 * The local event-source mapping: polls the table-backed queue and invokes the very handler
 * Lambda would, with an SQS-shaped batch; deletes what succeeded, leaves failures to
 * reappear after the visibility timeout (and to dead-letter after too many receives).
 */
export class LocalQueueRunner {
  private timers = new Map<QueueName, NodeJS.Timeout>();
  private running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly queue: TableQueue,
    private readonly handlers: Partial<Record<QueueName, QueueHandler>>,
    private readonly options: LocalQueueRunnerOptions = {},
  ) {}

  /** Processes one batch; the number of messages handled. */
  async pollOnce(queueName: QueueName): Promise<number> {
    const handler = this.handlers[queueName];
    if (!handler) return 0;
    const records = await this.queue.receive(queueName, this.options.batchSizes?.[queueName] ?? 5);
    if (records.length === 0) return 0;
    const event: QueueEvent = {
      Records: records.map((record) => ({
        ...record,
        receiptHandle: record.messageId,
        eventSource: "aws:sqs",
        eventSourceARN: `arn:aws:sqs:local:000000000000:${queueName}`,
      })),
    };
    let failed = new Set<string>(records.map((record) => record.messageId));
    try {
      const result = await handler(event);
      failed = new Set(result.batchItemFailures.map((failure) => failure.itemIdentifier));
    } catch (error) {
      log.error("Queue handler failed", { queue: queueName, error: String(error) });
    }
    await Promise.all(records.filter((record) => !failed.has(record.messageId)).map((record) => this.queue.delete(record.messageId)));
    return records.length;
  }

  /** Handles messages until none is visible (tests; no timers involved). */
  async drain(queueName: QueueName, maxBatches = 10_000): Promise<number> {
    let handled = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const count = await this.pollOnce(queueName);
      if (count === 0) return handled;
      handled += count;
    }
    return handled;
  }

  /**
   * Polls every queue with a handler until `stop()`. As the queues' only consumer, it first takes
   * back the messages its previous run left in flight (a `kill -9` mid-chunk), so they run now.
   */
  async start(): Promise<void> {
    const queues = Object.keys(this.handlers) as QueueName[];
    for (const queueName of queues) {
      const released = await this.queue.releaseInFlight(queueName);
      if (released > 0) log.info("Released in-flight messages of the previous run", { queue: queueName, released });
    }
    for (const queueName of queues) this.schedule(queueName, 0);
  }

  private schedule(queueName: QueueName, delayMs: number) {
    if (this.stopped) return;
    this.timers.set(
      queueName,
      setTimeout(() => {
        const work = this.pollOnce(queueName).then(
          (count) => this.schedule(queueName, count > 0 ? 0 : (this.options.idlePollMs ?? 500)),
          (error) => {
            log.error("Queue poll failed", { queue: queueName, error: String(error) });
            this.schedule(queueName, this.options.idlePollMs ?? 500);
          },
        );
        this.running.add(work);
        void work.finally(() => this.running.delete(work));
      }, delayMs),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    await Promise.allSettled([...this.running]);
  }
}
