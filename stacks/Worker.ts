import { Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from "aws-cdk-lib/aws-cloudwatch";
import { GatewayVpcEndpointAwsService, SubnetType, Vpc } from "aws-cdk-lib/aws-ec2";
import { Cron, Service, use, type StackContext } from "sst/constructs";
import { QueueNames } from "../packages/core/src/jobs";
import { Schedules, pascalName } from "../packages/core/src/registry";
import { buildProps } from "./functions";
import { Alarms } from "./Alarms";
import { Queues } from "./Queues";
import { Realtime } from "./Realtime";
import { Storage } from "./Storage";

/** The worker's task size: one engine restore and save per session and bar (docs/benchmarks.md, session worker). */
export const WORKER_TASK = { cpu: "0.5 vCPU", memory: "1 GB" } as const;

/**
 * The session worker (packages/worker, docs/session-worker.md) as a Fargate service: one task per
 * stage, its image built from the repository's Dockerfile (x86_64: LongPort's native module has
 * no arm64 build), with the table, the secrets, the queues and the WebSocket pushes granted.
 *
 * Outbound path: the task sits in a public subnet of its own VPC with a public IP and no NAT
 * gateway (nothing reaches it: its security group admits no inbound traffic, and there is no load
 * balancer). A NAT gateway would cost about ten times the public address (docs/operations.md).
 * During a deployment the old task stops before the new one starts (never two workers feeding
 * the same sessions; the run's conditional version makes an overlap harmless anyway).
 */
export function Worker({ stack, app }: StackContext) {
  const { table, secrets } = use(Storage);
  const { queueEnvironment, sendTo, sessionCommands } = use(Queues);
  const { managementEndpoint, manageConnections } = use(Realtime);
  const { notify } = use(Alarms);
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
    scaling: { minContainers: 1, maxContainers: 1, cpuUtilization: false, memoryUtilization: false, requestsPerContainer: false },
    environment: {
      NODE_ENV: "production",
      STAGE: app.stage,
      AWS_REGION: stack.region,
      POWERTOOLS_SERVICE_NAME: "trading-platform-worker",
      POWERTOOLS_METRICS_NAMESPACE: "TradingPlatform",
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
        desiredCount: 1,
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
  }

  // The day rollover after each market's close (packages/functions/src/schedule/day-rollover.ts).
  const { schedule, handler, timeoutSeconds } = Schedules["day-rollover"];
  const rollover = new Cron(stack, pascalName("day-rollover"), {
    schedule,
    job: {
      function: {
        handler,
        timeout: timeoutSeconds,
        // It rolls the sessions' calendars through the provider.
        ...buildProps({ provider: true }),
        environment: { TABLE_NAME: table.tableName, ...secrets.environment, WS_MANAGEMENT_ENDPOINT: managementEndpoint },
        permissions: [table, manageConnections],
      },
    },
  });
  secrets.grantRead(rollover.jobFunction);
  return { service, rollover };
}
