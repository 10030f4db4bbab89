import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { type Function, Queue, use, type StackContext } from "sst/constructs";
import { QueueNames, type QueueName } from "../packages/core/src/jobs";
import { IMPORT_MAX_RECEIVES } from "../packages/core/src/imports/index";
import { Storage } from "./Storage";
import { Alarms } from "./Alarms";
import { buildProps } from "./functions";
import { isProductionStage } from "../packages/adapters/src/config";

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
const envName = (name: QueueName) => `QUEUE_URL_${name.toUpperCase().replace(/-/g, "_")}`;

/** The worker function of each queue (packages/functions/src/queue/<name>.ts). */
const WORKER_TIMEOUT_SECONDS = 300;

/**
 * One SQS queue per job kind, each with a dead-letter queue after the worker's retry budget,
 * a CloudWatch alarm when anything lands there, and a worker reporting partial batch failures.
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
  for (const name of QueueNames) {
    const deadLetter = new sqs.Queue(stack, `${pascal(name)}DeadLetter`, { retentionPeriod: Duration.days(14), removalPolicy });
    const queue = new Queue(stack, pascal(name), {
      cdk: {
        queue: {
          // SQS advises a visibility timeout of six times the consumer's timeout.
          visibilityTimeout: Duration.seconds(WORKER_TIMEOUT_SECONDS * 6),
          removalPolicy,
          deadLetterQueue: { queue: deadLetter, maxReceiveCount: IMPORT_MAX_RECEIVES },
        },
      },
    });
    queues[name] = queue;
    environment[envName(name)] = queue.queueUrl;
    alarmOnDeadLetters(`${pascal(name)}DeadLetterAlarm`, deadLetter, `Messages of ${name} failed ${IMPORT_MAX_RECEIVES} times and were dead-lettered`);
  }
  // The session worker's commands (docs/session-worker.md): FIFO, one message group per session; the
  // worker polls it (no Lambda consumer). A command the worker fails five times is dead-lettered.
  const sessionCommandsDeadLetter = new sqs.Queue(stack, "SessionCommandsDeadLetter", { fifo: true, retentionPeriod: Duration.days(14), removalPolicy });
  const sessionCommands = new sqs.Queue(stack, "SessionCommands", {
    fifo: true,
    contentBasedDeduplication: false,
    visibilityTimeout: Duration.seconds(60),
    retentionPeriod: Duration.days(1),
    removalPolicy,
    deadLetterQueue: { queue: sessionCommandsDeadLetter, maxReceiveCount: 5 },
  });
  environment.QUEUE_URL_SESSION_COMMANDS = sessionCommands.queueUrl;
  alarmOnDeadLetters(
    "SessionCommandsDeadLetterAlarm",
    sessionCommandsDeadLetter,
    "Session commands failed 5 times in the session worker and were dead-lettered",
  );
  const sendCommands = new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [sessionCommands.queueArn] });

  const sendTo = (names: readonly QueueName[]) => new PolicyStatement({ actions: ["sqs:SendMessage"], resources: names.map((n) => queues[n]!.queueArn) });
  for (const name of QueueNames) {
    queues[name]!.addConsumer(stack, {
      function: {
        handler: `packages/functions/src/queue/${name}.handler`,
        timeout: WORKER_TIMEOUT_SECONDS,
        ...buildProps({ provider: true }),
        environment: { TABLE_NAME: table.tableName, ...secrets.environment, ...environment },
        // Receiving and deleting come with the event source; the workers send follow-ups and start imports.
        permissions: [table, sendTo(QueueNames)],
      },
      cdk: { eventSource: { batchSize: 1, reportBatchItemFailures: true } },
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
    sessionCommands,
    sendCommands,
  };
}
