import { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";
import type { JobQueue, QueueName } from "@tp/core/jobs";
import { awsClient } from "../aws-clients";

/** SQS: each queue's URL comes from configuration (`QUEUE_URL_<NAME>`, set by the Queues stack). */
export class SqsJobQueue implements JobQueue {
  private readonly client = awsClient(new SQSClient({}));
  constructor(private readonly urls: Partial<Record<QueueName, string>>) {}

  async send(queue: QueueName, body: object, options: { delaySeconds?: number } = {}) {
    const url = this.urls[queue];
    if (!url) throw new Error(`No URL configured for queue ${queue}`);
    await this.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(body), DelaySeconds: options.delaySeconds }));
  }
}
