import { beforeAll, describe, expect, it } from "vitest";
import { Match, Template } from "aws-cdk-lib/assertions";
import { initProject } from "sst/project.js";
import { App, getStack } from "sst/constructs";
import config from "../../sst.config";
import { Worker } from "../../stacks/Worker";

let worker: Template;

beforeAll(async () => {
  process.env.NODE_ENV = "test";
  await initProject({ stage: "test" });
  const app = new App({ mode: "deploy", stage: "test", name: "trading-platform", region: "us-east-1" });
  config.stacks(app);
  worker = Template.fromStack(getStack(Worker));
}, 300_000);

/** Every action of the statements of the policies attached to the worker's task role. */
const taskRoleActions = () => {
  const roles = Object.entries(worker.findResources("AWS::IAM::Role")).filter(([, role]) =>
    JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes("ecs-tasks.amazonaws.com"),
  );
  const taskRole = roles.find(([id]) => id.includes("TaskRole"))![0];
  return Object.values(worker.findResources("AWS::IAM::Policy"))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(taskRole))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
};

describe("Worker stack: the session worker as a Fargate service", () => {
  it("runs at least one x86_64 task per stage, without a load balancer, stopping the old task before starting the new one", () => {
    worker.resourceCountIs("AWS::ECS::Service", 1);
    worker.hasResourceProperties("AWS::ECS::Service", {
      LaunchType: "FARGATE",
      DesiredCount: 1,
      DeploymentConfiguration: Match.objectLike({ MinimumHealthyPercent: 0, MaximumPercent: 100, DeploymentCircuitBreaker: { Enable: true, Rollback: true } }),
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: "ENABLED" }) },
    });
    worker.resourceCountIs("AWS::ElasticLoadBalancingV2::LoadBalancer", 0);
    worker.resourceCountIs("AWS::CloudFront::Distribution", 0);
    worker.hasResourceProperties("AWS::ApplicationAutoScaling::ScalableTarget", { MinCapacity: 1, MaxCapacity: 4 });
  });

  it("scales the tasks on the lag the worker publishes: out above 2 s, faster above 5 s, in below 0.5 s", () => {
    // No scaling on CPU, memory or requests: only the worker's own lag.
    worker.resourceCountIs("AWS::ApplicationAutoScaling::ScalingPolicy", 2);
    const policies = Object.values(worker.findResources("AWS::ApplicationAutoScaling::ScalingPolicy")).map((policy) => policy.Properties);
    expect(policies.every((policy) => policy.PolicyType === "StepScaling")).toBe(true);
    const steps = policies.flatMap((policy) => policy.StepScalingPolicyConfiguration.StepAdjustments);
    expect(steps).toEqual(
      expect.arrayContaining([
        { MetricIntervalUpperBound: 0, ScalingAdjustment: -1 },
        { MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 3000, ScalingAdjustment: 1 },
        { MetricIntervalLowerBound: 3000, ScalingAdjustment: 2 },
      ]),
    );
    // The alarms that drive them read WorkerLag (the longest wait of a bar in each minute) of the worker's service.
    const lagAlarms = Object.values(worker.findResources("AWS::CloudWatch::Alarm")).filter((alarm) => alarm.Properties.MetricName === "WorkerLag");
    for (const alarm of lagAlarms)
      expect(alarm.Properties).toMatchObject({
        Namespace: "TradingPlatform",
        Statistic: "Maximum",
        Period: 60,
        Dimensions: [{ Name: "service", Value: "trading-platform-worker" }],
      });
    expect(lagAlarms.map((alarm) => [alarm.Properties.ComparisonOperator, alarm.Properties.Threshold])).toEqual(
      expect.arrayContaining([
        ["LessThanOrEqualToThreshold", 500],
        ["GreaterThanOrEqualToThreshold", 2000],
      ]),
    );
  });

  it("reaches the provider through a public subnet with a public IP: no NAT gateway", () => {
    worker.resourceCountIs("AWS::EC2::NatGateway", 0);
    worker.resourceCountIs("AWS::EC2::InternetGateway", 1);
    worker.hasResourceProperties("AWS::EC2::VPCEndpoint", {
      VpcEndpointType: "Gateway",
      ServiceName: Match.objectLike({ "Fn::Join": Match.arrayWith([Match.arrayWith([".dynamodb"])]) }),
    });
    const subnets = Object.values(worker.findResources("AWS::EC2::Subnet"));
    expect(subnets.length).toBe(2);
    for (const subnet of subnets) expect(subnet.Properties.MapPublicIpOnLaunch).toBe(true);
    // Nothing reaches the task: its security group admits no inbound traffic.
    for (const group of Object.values(worker.findResources("AWS::EC2::SecurityGroup"))) expect(group.Properties.SecurityGroupIngress ?? []).toEqual([]);
  });

  it("defines the task from the repository's worker image with the table, secrets, queues and socket endpoint", () => {
    worker.hasResourceProperties("AWS::ECS::TaskDefinition", {
      Cpu: "512",
      Memory: "1024",
      RequiresCompatibilities: ["FARGATE"],
      RuntimePlatform: Match.objectLike({ CpuArchitecture: "X86_64" }),
      ContainerDefinitions: [Match.objectLike({ LogConfiguration: Match.objectLike({ LogDriver: "awslogs" }) })],
    });
    const container = Object.values(worker.findResources("AWS::ECS::TaskDefinition"))[0]!.Properties.ContainerDefinitions[0];
    const environment = Object.fromEntries(container.Environment.map((variable: { Name: string; Value: unknown }) => [variable.Name, variable.Value]));
    expect(environment).toMatchObject({
      NODE_ENV: "production",
      POWERTOOLS_SERVICE_NAME: "trading-platform-worker",
      POWERTOOLS_METRICS_NAMESPACE: "TradingPlatform",
    });
    for (const name of [
      "TABLE_NAME",
      "JWT_SECRET_ARN",
      "ENCRYPTION_KEY_ARN",
      "WS_MANAGEMENT_ENDPOINT",
      "QUEUE_URL_STOCK_IMPORT",
      "QUEUE_URL_DATA_SYNC",
      "QUEUE_URL_SESSION_COMMANDS",
    ])
      expect(environment, name).toHaveProperty(name);
  });

  it("grants the task role the table, reading the secrets, sending to the queues and pushing to @connections only", () => {
    const statements = taskRoleActions();
    const actions = statements.flatMap((statement: any) => [statement.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining(["secretsmanager:GetSecretValue", "sqs:SendMessage", "execute-api:ManageConnections", "sqs:ReceiveMessage", "sqs:DeleteMessage"]),
    );
    // It consumes the session commands queue (and only it).
    const consume = statements.filter((statement: any) => [statement.Action].flat().includes("sqs:ReceiveMessage"));
    expect(JSON.stringify(consume)).toContain("SessionCommands");
    expect(JSON.stringify(consume)).not.toContain("StockImport");
    // The step's connection look-ups are a PartiQL SELECT (`Repository.queryPartitions`): the table's grant covers it.
    expect(actions.some((action: string) => action === "dynamodb:*" || action === "dynamodb:PartiQLSelect")).toBe(true);
    expect(actions).not.toContain("sqs:*");
    const manage = statements.filter((statement: any) => statement.Action === "execute-api:ManageConnections");
    for (const statement of manage) expect(JSON.stringify(statement.Resource)).toContain("/test/POST/@connections/*");
  });

  it("keeps the worker's logs a month", () => {
    const retention = Object.values(worker.findResources("Custom::LogRetention")).map((r) => r.Properties.RetentionInDays);
    expect(retention.length).toBeGreaterThan(0);
    expect(new Set(retention)).toEqual(new Set([30]));
  });
});

describe("Worker stack: the day rollover", () => {
  it("starts the rollover's state machine on weekdays after Hong Kong's and New York's close; its roll task pushes to the sockets", () => {
    worker.hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "cron(15 8,20,21 ? * MON-FRI *)", State: "ENABLED" });
    const [rule] = Object.values(worker.findResources("AWS::Events::Rule"));
    expect(rule.Properties.Targets).toHaveLength(1);
    expect(rule.Properties.Targets[0].Input).toBe("{}");
    expect(JSON.stringify(rule.Properties.Targets[0].Arn)).toContain("DayRolloverStateMachine");
    // No function of its own here: its tasks are the workflow's (stacks/Workflows.ts), built and invoked by build.test.ts.
    expect(Object.keys(worker.findResources("AWS::Lambda::Function")).filter((id) => id.startsWith("DayRollover"))).toEqual([]);
  });
});

describe("Worker stack: alarms", () => {
  it("notifies the alarm topic when the worker falls behind: bars waited over 10 s to be fed for 3 minutes", () => {
    worker.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "TradingPlatform",
      MetricName: "WorkerLag",
      Dimensions: [{ Name: "service", Value: "trading-platform-worker" }],
      Statistic: "Maximum",
      Period: 60,
      Threshold: 10_000,
      EvaluationPeriods: 3,
      ComparisonOperator: "GreaterThanThreshold",
      TreatMissingData: "notBreaching",
      AlarmDescription: Match.stringLikeRegexp("falling behind"),
      AlarmActions: [Match.anyValue()],
      OKActions: [Match.anyValue()],
    });
  });

  it("notifies the alarm topic when the worker has had no running task for 5 minutes", () => {
    worker.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "AWS/ECS",
      MetricName: "CPUUtilization",
      Statistic: "SampleCount",
      Threshold: 1,
      EvaluationPeriods: 5,
      ComparisonOperator: "LessThanThreshold",
      TreatMissingData: "breaching",
      AlarmActions: [Match.anyValue()],
      OKActions: [Match.anyValue()],
    });
  });
});
