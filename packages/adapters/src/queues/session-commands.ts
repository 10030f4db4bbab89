import { randomUUID } from "node:crypto";
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { SESSION_COMMANDS_QUEUE } from "@tp/core/jobs";
import type { SessionCommand, SessionCommandSink, SessionCommandSource } from "@tp/core/trading/worker/commands";
import { awsClient } from "../aws-clients";
import type { TableQueue } from "./table-queue";

/**
 * The session worker's command queue on AWS: SQS FIFO, one message group per session (so one
 * session's commands arrive in order while other sessions' go on), deduplicated by a fresh id
 * per command (a retried send of the same command may be seen twice: handling is idempotent).
 */
export class SqsSessionCommands implements SessionCommandSink, SessionCommandSource {
  private readonly client = awsClient(new SQSClient({}));
  constructor(private readonly url: string) {}

  async send(command: SessionCommand): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.url,
        MessageBody: JSON.stringify(command),
        MessageGroupId: command.session_id,
        MessageDeduplicationId: randomUUID(),
      }),
    );
  }

  async receive(max: number) {
    const answer = await this.client.send(new ReceiveMessageCommand({ QueueUrl: this.url, MaxNumberOfMessages: Math.min(10, max), WaitTimeSeconds: 0 }));
    return (answer.Messages ?? []).map((message) => ({ receipt: message.ReceiptHandle!, command: JSON.parse(message.Body!) as SessionCommand }));
  }

  async delete(receipt: string): Promise<void> {
    await this.client.send(new DeleteMessageCommand({ QueueUrl: this.url, ReceiptHandle: receipt }));
  }
}

/** The embedded runtime's: the table-backed queue, received in the order sent by the one worker that polls it. */
export class TableSessionCommands implements SessionCommandSink, SessionCommandSource {
  constructor(private readonly queue: TableQueue) {}

  async send(command: SessionCommand): Promise<void> {
    await this.queue.send(SESSION_COMMANDS_QUEUE, command);
  }

  async receive(max: number) {
    const records = await this.queue.receive(SESSION_COMMANDS_QUEUE, max);
    return records.map((record) => ({ receipt: record.messageId, command: JSON.parse(record.body) as SessionCommand }));
  }

  async delete(receipt: string): Promise<void> {
    await this.queue.delete(receipt);
  }
}
