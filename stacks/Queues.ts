import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { type Function, Queue, use, type StackContext } from "sst/constructs";
import { QueueNames, SESSION_COMMANDS_QUEUE, queueUrlVariable, type QueueName } from "../packages/core/src/jobs";
import { Queues as QueueRegistry, lambdaConsumerOf, pascalName, type RegisteredQueue } from "../packages/core/src/registry";
import { Storage } from "./Storage";
import { Alarms } from "./Alarms";
import { buildProps } from "./functions";
import { isProductionStage } from "../packages/adapters/src/config";

/**
 * One SQS queue per entry of the registry (packages/core/src/registry.ts), each with a dead-letter
 * queue after its receive budget and a CloudWatch alarm when anything lands there. A job queue
 * feeds its Lambda worker, reporting partial batch failures; the session worker's FIFO command
 * queue (docs/session-worker.md, one message group per session) is polled by the worker instead.
 */
export function Queues({ stack, app }: StackContext) {
  // Queued work is kept when a production stage's stack is removed.
  const removalPolicy = isProductionStage(app.stage) ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
  const { table, secrets } = use(Storage);
  const { notify } = use(Alarms);
  const queues: Partial<Record<QueueName, Queue>> = {};
  const environment: Record<string, string> = {};
  /** An alarm on the alarm topic as soon as a message lands in `deadLetter`. */
  const alarmOnDeadLetters = (id: string, deadLetter: sqs.Queue, description: string) =>
    notify(
      new Alarm(stack, id, {
        alarmDescription: description,
        metric: deadLetter.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  let sessionCommands: sqs.Queue | undefined;
  for (const name of Object.keys(QueueRegistry) as RegisteredQueue[]) {
    const entry = QueueRegistry[name];
    const id = pascalName(name);
    const deadLetter = new sqs.Queue(stack, `${id}DeadLetter`, {
      ...(entry.fifo ? { fifo: true } : {}),
      retentionPeriod: Duration.days(entry.deadLetterRetentionDays),
      removalPolicy,
    });
    const queueProps = {
      ...(entry.fifo ? { fifo: true, contentBasedDeduplication: false } : {}),
      visibilityTimeout: Duration.seconds(entry.visibilityTimeoutSeconds),
      ...("retentionDays" in entry ? { retentionPeriod: Duration.days(entry.retentionDays) } : {}),
      removalPolicy,
      deadLetterQueue: { queue: deadLetter, maxReceiveCount: entry.maxReceiveCount },
    };
    const description = lambdaConsumerOf(name)
      ? `Messages of ${name} failed ${entry.maxReceiveCount} times and were dead-lettered`
      : `Session commands failed ${entry.maxReceiveCount} times in the session worker and were dead-lettered`;
    alarmOnDeadLetters(`${id}DeadLetterAlarm`, deadLetter, description);
    if (name === SESSION_COMMANDS_QUEUE) {
      sessionCommands = new sqs.Queue(stack, id, queueProps);
      environment[queueUrlVariable(name)] = sessionCommands.queueUrl;
    } else {
      const queue = new Queue(stack, id, { cdk: { queue: queueProps } });
      queues[name] = queue;
      environment[queueUrlVariable(name)] = queue.queueUrl;
    }
  }
  const sendCommands = new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [sessionCommands!.queueArn] });

  const sendTo = (names: readonly QueueName[]) => new PolicyStatement({ actions: ["sqs:SendMessage"], resources: names.map((n) => queues[n]!.queueArn) });
  for (const name of QueueNames) {
    const consumer = lambdaConsumerOf(name)!;
    queues[name]!.addConsumer(stack, {
      function: {
        handler: consumer.handler,
        timeout: consumer.timeoutSeconds,
        ...buildProps({ provider: true }),
        environment: { TABLE_NAME: table.tableName, ...secrets.environment, ...environment },
        // Receiving and deleting come with the event source; the workers send follow-ups and start imports.
        permissions: [table, sendTo(QueueNames)],
      },
      cdk: { eventSource: { batchSize: consumer.batchSize, reportBatchItemFailures: true } },
    });
    secrets.grantRead(queues[name]!.consumerFunction!);
  }
  const consumers = QueueNames.map((name) => queues[name]!.consumerFunction as Function);
  return {
    queues: Object.values(queues),
    queueByName: queues as Record<QueueName, Queue>,
    queueEnvironment: environment,
    consumers,
    sendTo,
    sessionCommands: sessionCommands!,
    sendCommands,
  };
}
