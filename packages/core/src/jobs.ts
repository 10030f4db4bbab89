/** Queue names; the Queues stack creates one SQS queue (with a dead-letter queue) per name. */
export const QueueNames = ["stock-import", "data-sync", "webhook-delivery"] as const;
export type QueueName = (typeof QueueNames)[number];

/** The session worker's command queue (docs/session-worker.md): SQS FIFO on AWS, polled by the worker rather than feeding a Lambda. */
export const SESSION_COMMANDS_QUEUE = "session-commands";
/** Every queue the table-backed local queue holds. */
export type LocalQueueName = QueueName | typeof SESSION_COMMANDS_QUEUE;

/** The environment variable holding a queue's URL (`QUEUE_URL_STOCK_IMPORT`), set by the Queues stack. */
export const queueUrlVariable = (queue: LocalQueueName) => `QUEUE_URL_${queue.toUpperCase().replace(/-/g, "_")}`;

/** Sends work to a queue-fed worker (SQS on AWS, a table-backed queue locally). */
export interface JobQueue {
  send(queue: QueueName, body: object, options?: { delaySeconds?: number }): Promise<void>;
}

/** A message as a worker receives it (the fields of an SQS record the handlers read). */
export interface QueueRecord {
  messageId: string;
  body: string;
  attributes: { ApproximateReceiveCount: string };
}

/** What a worker answers: the ids to redeliver (SQS partial batch failure). */
export interface BatchResult {
  batchItemFailures: { itemIdentifier: string }[];
}
