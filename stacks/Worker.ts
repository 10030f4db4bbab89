import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, Metric, Stats, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { AdjustmentType } from "aws-cdk-lib/aws-applicationautoscaling";
import { GatewayVpcEndpointAwsService, SubnetType, Vpc } from "aws-cdk-lib/aws-ec2";
import { Rule, RuleTargetInput, Schedule as EventSchedule } from "aws-cdk-lib/aws-events";
import { SfnStateMachine } from "aws-cdk-lib/aws-events-targets";
import { Service, use, type StackContext } from "sst/constructs";
import { QueueNames } from "../packages/core/src/jobs";
import { Schedules, pascalName } from "../packages/core/src/registry";
import { WORKER_METRICS } from "../packages/worker/src/metrics";
import { Alarms } from "./Alarms";
import { Queues } from "./Queues";
import { Realtime } from "./Realtime";
import { Storage } from "./Storage";
import { Workflows } from "./Workflows";

/** The worker's task size: one engine restore and save per session and bar (docs/benchmarks.md, session worker). */
export const WORKER_TASK = { cpu: "0.5 vCPU", memory: "1 GB" } as const;

/**
 * How many worker tasks share the sessions (docs/session-worker.md "More than one worker" and
 * "Scaling"): at least one; more while the worker's lag (`WorkerLag`, the longest a bar waited
 * between its push and its feeding, in a minute) stays above `scaleOutMs`, fewer once it is below
 * `scaleInMs`. `behindMs` for `behindMinutes` minutes raises the "falling behind" alarm.
 */
export const WORKER_SCALING = { min: 1, max: 4, scaleOutMs: 2_000, scaleFastMs: 5_000, scaleInMs: 500, behindMs: 10_000, behindMinutes: 3 } as const;

/**
 * The session worker (packages/worker, docs/session-worker.md) as a Fargate service: one task per
 * stage, its image built from the repository's Dockerfile (x86_64: LongPort's native module has
 * no arm64 build), with the table, the secrets, the queues and the WebSocket pushes granted.
 *
 * Outbound path: the task sits in a public subnet of its own VPC with a public IP and no NAT
 * gateway (nothing reaches it: its security group admits no inbound traffic, and there is no load
 * balancer). A NAT gateway would cost about ten times the public address (docs/operations.md).
 * Tasks share the sessions through leases in the table (each session fed by one task at a time;
 * a stopping task gives its leases up, a dead one's are taken over within 30 s), so a deployment
 * may stop the old tasks before the new ones start, and the service scales on the lag the
 * worker publishes.
 */
/** The worker's Powertools service name: the `service` dimension of its metrics. */
const WORKER_SERVICE_NAME = "trading-platform-worker";

export function Worker({ stack, app }: StackContext) {
  const { table, secrets } = use(Storage);
  const { queueEnvironment, sendTo, sessionCommands } = use(Queues);
  const { managementEndpoint, manageConnections } = use(Realtime);
  const { notify } = use(Alarms);
  const { stateMachines } = use(Workflows);
  const vpc = new Vpc(stack, "WorkerVpc", {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: "public", subnetType: SubnetType.PUBLIC, cidrMask: 24 }],
    // The table's traffic stays inside the VPC (a gateway endpoint costs nothing).
    gatewayEndpoints: { DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB } },
  });
  const service = new Service(stack, "SessionWorker", {
    path: ".",
    file: "packages/worker/Dockerfile",
    // Required by the construct; the worker listens on nothing and no load balancer is created.
    port: 8080,
    architecture: "x86_64",
    cpu: WORKER_TASK.cpu,
    memory: WORKER_TASK.memory,
    logRetention: "one_month",
    scaling: {
      minContainers: WORKER_SCALING.min,
      maxContainers: WORKER_SCALING.max,
      cpuUtilization: false,
      memoryUtilization: false,
      requestsPerContainer: false,
    },
    environment: {
      NODE_ENV: "production",
      STAGE: app.stage,
      AWS_REGION: stack.region,
      POWERTOOLS_SERVICE_NAME: WORKER_SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: WORKER_METRICS.namespace,
      TABLE_NAME: table.tableName,
      WS_MANAGEMENT_ENDPOINT: managementEndpoint,
      ...secrets.environment,
      ...queueEnvironment,
    },
    // The table; follow-up work it queues (imports); pushes of session events to WebSocket clients;
    // the API's session commands it consumes (granted on the task role below; URL in queueEnvironment).
    permissions: [table, sendTo(QueueNames), manageConnections],
    cdk: {
      vpc,
      applicationLoadBalancer: false,
      cloudfrontDistribution: false,
      fargateService: {
        desiredCount: WORKER_SCALING.min,
        minHealthyPercent: 0,
        maxHealthyPercent: 100,
        assignPublicIp: true,
        vpcSubnets: { subnetType: SubnetType.PUBLIC },
        circuitBreaker: { rollback: true },
      },
    },
  });
  const taskRole = service.cdk?.taskDefinition?.taskRole;
  if (taskRole) {
    secrets.grantRead(taskRole);
    sessionCommands.grantConsumeMessages(taskRole);
  }
  const fargate = service.cdk?.fargateService;
  if (fargate) {
    // A running task reports CPU every minute; none for 5 minutes means no worker (crashing, or not placed).
    const running = fargate.metricCpuUtilization({ period: Duration.minutes(1), statistic: Stats.SAMPLE_COUNT });
    const down = new Alarm(stack, "WorkerNotRunning", {
      alarmDescription: "The session worker has had no running task for 5 minutes: simulation and live sessions are not fed",
      metric: running,
      threshold: 1,
      evaluationPeriods: 5,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    });
    notify(down);

    // The lag the tasks publish (packages/worker/src/metrics.ts), the longest of any task in each minute.
    const lag = new Metric({
      namespace: WORKER_METRICS.namespace,
      metricName: WORKER_METRICS.lag,
      dimensionsMap: { service: WORKER_SERVICE_NAME },
      statistic: Stats.MAXIMUM,
      period: Duration.minutes(1),
    });
    service.cdk?.scaling?.scaleOnMetric("ScaleOnLag", {
      metric: lag,
      adjustmentType: AdjustmentType.CHANGE_IN_CAPACITY,
      scalingSteps: [
        { upper: WORKER_SCALING.scaleInMs, change: -1 },
        { lower: WORKER_SCALING.scaleOutMs, change: +1 },
        { lower: WORKER_SCALING.scaleFastMs, change: +2 },
      ],
      evaluationPeriods: 2,
      cooldown: Duration.minutes(2),
    });
    const behind = new Alarm(stack, "WorkerFallingBehind", {
      alarmDescription: `The session worker is falling behind: bars waited more than ${WORKER_SCALING.behindMs / 1000} s to be fed for ${WORKER_SCALING.behindMinutes} minutes`,
      metric: lag,
      threshold: WORKER_SCALING.behindMs,
      evaluationPeriods: WORKER_SCALING.behindMinutes,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    notify(behind);
  }

  // The day rollover after each market's close: the schedule starts its workflow (packages/core/src/workflows/day-rollover.asl.json).
  const { schedule, workflow } = Schedules["day-rollover"];
  const rollover = new Rule(stack, pascalName("day-rollover"), {
    schedule: EventSchedule.expression(schedule),
    targets: [new SfnStateMachine(stateMachines[workflow], { input: RuleTargetInput.fromObject({}) })],
  });
  return { service, rollover };
}
