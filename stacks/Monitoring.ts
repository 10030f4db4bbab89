import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, TreatMissingData, type IMetric } from "aws-cdk-lib/aws-cloudwatch";
import { Operation } from "aws-cdk-lib/aws-dynamodb";
import { use, type StackContext } from "sst/constructs";
import { Alarms } from "./Alarms";
import { Api } from "./Api";
import { DataSync } from "./DataSync";
import { Queues } from "./Queues";
import { Realtime } from "./Realtime";
import { Storage } from "./Storage";
import { Workflows } from "./Workflows";

/** A queue message older than this means its worker is not keeping up (or not running). */
const QUEUE_AGE_ALARM_SECONDS = 600;
/** p99 latency of the HTTP API above this, for 3 of 5 minutes. */
const API_P99_ALARM_MS = 3_000;

/**
 * What an operator watches in CloudWatch: alarms on every function's errors and throttles, the
 * HTTP API's 5xx and p99 latency, queue age, and DynamoDB throttles, each notifying the alarm
 * topic; and one dashboard with the same figures.
 */
export function Monitoring({ stack, app }: StackContext) {
  const { notify } = use(Alarms);
  const { table } = use(Storage);
  const { api, functions: httpFunctions } = use(Api);
  const { queueByName, consumers } = use(Queues);
  const { functions: taskFunctions } = use(Workflows);
  const { functions: socketFunctions } = use(Realtime);
  const { poll } = use(DataSync);
  const functions = [...httpFunctions, ...consumers, ...taskFunctions, ...socketFunctions, poll.jobFunction];

  const alarm = (
    id: string,
    description: string,
    metric: IMetric,
    threshold: number,
    options: { evaluationPeriods?: number; datapointsToAlarm?: number } = {},
  ) => {
    const created = new Alarm(stack, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    notify(created);
    return created;
  };

  functions.forEach((fn, index) => {
    const name = fn.node.id;
    alarm(`FunctionErrors${index}`, `${name}: invocations failed`, fn.metricErrors({ period: Duration.minutes(5) }), 1);
    alarm(`FunctionThrottles${index}`, `${name}: invocations throttled`, fn.metricThrottles({ period: Duration.minutes(5) }), 1);
  });
  const httpApi = api.cdk.httpApi;
  const serverErrors = httpApi.metricServerError({ period: Duration.minutes(1) });
  const latency = httpApi.metricLatency({ period: Duration.minutes(1), statistic: "p99" });
  alarm("ApiServerErrors", "HTTP API: 5xx answers", serverErrors, 5, { evaluationPeriods: 5, datapointsToAlarm: 2 });
  alarm("ApiLatencyP99", `HTTP API: p99 latency above ${API_P99_ALARM_MS} ms`, latency, API_P99_ALARM_MS, { evaluationPeriods: 5, datapointsToAlarm: 3 });
  const queueAges = Object.entries(queueByName).map(([name, queue]) => {
    const age = queue.cdk.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1) });
    alarm(`QueueAge${name.replace(/-/g, "")}`, `${name} queue: oldest message older than ${QUEUE_AGE_ALARM_SECONDS} s`, age, QUEUE_AGE_ALARM_SECONDS, {
      evaluationPeriods: 3,
    });
    return age;
  });
  const throttled = table.cdk.table.metricThrottledRequestsForOperations({
    operations: [
      Operation.GET_ITEM,
      Operation.PUT_ITEM,
      Operation.UPDATE_ITEM,
      Operation.DELETE_ITEM,
      Operation.QUERY,
      Operation.BATCH_GET_ITEM,
      Operation.BATCH_WRITE_ITEM,
      Operation.TRANSACT_WRITE_ITEMS,
    ],
    period: Duration.minutes(1),
  });
  alarm("TableThrottles", "DynamoDB: requests throttled", throttled, 1);

  const dashboard = new Dashboard(stack, "Dashboard", { dashboardName: app.logicalPrefixedName("operations") });
  dashboard.addWidgets(
    new GraphWidget({ title: "HTTP API requests and 5xx", left: [httpApi.metricCount({ period: Duration.minutes(1) })], right: [serverErrors], width: 12 }),
    new GraphWidget({ title: "HTTP API p99 latency (ms)", left: [latency], width: 12 }),
    new GraphWidget({ title: "Function errors", left: functions.map((fn) => fn.metricErrors({ period: Duration.minutes(5), label: fn.node.id })), width: 12 }),
    new GraphWidget({
      title: "Function throttles",
      left: functions.map((fn) => fn.metricThrottles({ period: Duration.minutes(5), label: fn.node.id })),
      width: 12,
    }),
    new GraphWidget({ title: "Queue age of oldest message (s)", left: queueAges, width: 12 }),
    new GraphWidget({ title: "DynamoDB throttled requests", left: [throttled], width: 12 }),
  );
  stack.addOutputs({ DashboardName: dashboard.dashboardName });
  return { dashboard };
}
