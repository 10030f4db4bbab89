import { beforeAll, describe, expect, it } from "vitest";
import { Match, Template } from "aws-cdk-lib/assertions";
import { initProject } from "sst/project.js";
import { App, StaticSite, getStack } from "sst/constructs";
import { Storage } from "../../stacks/Storage";
import { Realtime } from "../../stacks/Realtime";
import { Api } from "../../stacks/Api";
import { Queues } from "../../stacks/Queues";
import { DataSync } from "../../stacks/DataSync";
import { Workflows } from "../../stacks/Workflows";
import { Alarms } from "../../stacks/Alarms";
import { Monitoring } from "../../stacks/Monitoring";
import { Console } from "../../stacks/Console";
import config from "../../sst.config";
import { groupRoutes } from "../../packages/api/src/routes";
import { Table } from "../../packages/adapters/src/dynamo/table";
import { QueueNames } from "../../packages/core/src/jobs";
import { WorkflowExecutionTypes } from "../../packages/core/src/workflows";

let storage: Template;
let realtime: Template;
let api: Template;
let queues: Template;
let dataSync: Template;
let alarms: Template;
let monitoring: Template;
let consoleSite: Template;
let workflows: Template;

beforeAll(async () => {
  await initProject({ stage: "test" });
  const app = new App({ mode: "deploy", stage: "test", name: "trading-platform", region: "us-east-1" });
  config.stacks(app);
  storage = Template.fromStack(getStack(Storage));
  realtime = Template.fromStack(getStack(Realtime));
  api = Template.fromStack(getStack(Api));
  queues = Template.fromStack(getStack(Queues));
  dataSync = Template.fromStack(getStack(DataSync));
  alarms = Template.fromStack(getStack(Alarms));
  monitoring = Template.fromStack(getStack(Monitoring));
  consoleSite = Template.fromStack(getStack(Console));
  workflows = Template.fromStack(getStack(Workflows));
}, 300_000);

describe("Storage stack", () => {
  it("has the single table with generic keys, the shared GSIs, TTL and point-in-time recovery", () => {
    storage.hasResourceProperties("AWS::DynamoDB::Table", {
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      BillingMode: "PAY_PER_REQUEST",
      TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: Object.values(Table.indexes).map((index) =>
        Match.objectLike({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: "HASH" },
            { AttributeName: index.sortKey, KeyType: "RANGE" },
          ],
        }),
      ),
    });
  });

  it("generates the token-signing secret and the credential encryption key", () => {
    // The token secret, the credential key, and (not production) the smoke test's captcha code.
    storage.resourceCountIs("AWS::SecretsManager::Secret", 3);
    storage.hasOutput("CaptchaTestCodeSecretArn", {});
    storage.hasResourceProperties("AWS::SecretsManager::Secret", {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
  });
});

describe("Api stack", () => {
  it("routes every group's paths to that group's function", () => {
    const routeKeys = Object.values(api.findResources("AWS::ApiGatewayV2::Route")).map((route: any) => route.Properties.RouteKey);
    const expected = Object.values(groupRoutes).flat() as string[];
    expect(routeKeys.sort()).toEqual([...expected].sort());
  });

  it("runs one Node.js 22 function per group with the table and secret in its environment", () => {
    const functions = api.findResources("AWS::Lambda::Function", {
      Properties: {
        Runtime: "nodejs22.x",
        Environment: {
          Variables: Match.objectLike({
            TABLE_NAME: Match.anyValue(),
            JWT_SECRET_ARN: Match.anyValue(),
            ENCRYPTION_KEY_ARN: Match.anyValue(),
            WS_MANAGEMENT_ENDPOINT: Match.anyValue(),
          }),
        },
      },
    });
    const groupFunctions = Object.keys(functions).filter((logicalId) => logicalId.startsWith("Http"));
    const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
    for (const group of Object.keys(groupRoutes)) {
      expect(groupFunctions.some((logicalId) => logicalId.startsWith(`Http${pascal(group)}`))).toBe(true);
    }
    expect(groupFunctions).toHaveLength(Object.keys(groupRoutes).length);
  });
});

describe("Queues stack", () => {
  it("has the session worker's FIFO command queue, dead-lettering after five receives, with an alarm", () => {
    queues.hasResourceProperties("AWS::SQS::Queue", {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 5 },
    });
    expect(Object.values(queues.findResources("AWS::SQS::Queue")).filter((q) => q.Properties.FifoQueue === true)).toHaveLength(2);
    queues.hasResourceProperties("AWS::CloudWatch::Alarm", { AlarmDescription: Match.stringLikeRegexp("Session commands") });
  });

  it("feeds the import queue to its worker with partial batch failures, dead-lettering after five receives", () => {
    // A queue and its dead-letter queue per job kind.
    queues.resourceCountIs("AWS::SQS::Queue", QueueNames.length * 2 + 2); // each job queue and its dead letters, and the session commands and theirs;
    queues.hasResourceProperties("AWS::SQS::Queue", {
      VisibilityTimeout: 1800,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 5 },
    });
    queues.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
    queues.hasResourceProperties("AWS::Lambda::Function", { Timeout: 300, Runtime: "nodejs22.x" });
  });

  it("alarms when a message reaches the dead-letter queue", () => {
    queues.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
  });

  it("gives the API functions the queue URL", () => {
    api.hasResourceProperties("AWS::Lambda::Function", {
      Environment: { Variables: Match.objectLike({ QUEUE_URL_STOCK_IMPORT: Match.anyValue() }) },
    });
  });
});

describe("Realtime stack", () => {
  it("has a WebSocket API with $connect, $disconnect and $default", () => {
    realtime.hasResourceProperties("AWS::ApiGatewayV2::Api", { ProtocolType: "WEBSOCKET" });
    const routeKeys = Object.values(realtime.findResources("AWS::ApiGatewayV2::Route")).map((route: any) => route.Properties.RouteKey);
    expect(routeKeys.sort()).toEqual(["$connect", "$default", "$disconnect"]);
  });

  it("puts a CloudFront function in front that passes the interface's paths to $connect", () => {
    realtime.hasResourceProperties("AWS::CloudFront::Function", {
      FunctionCode: Match.stringLikeRegexp("querystring.path"),
    });
    realtime.resourceCountIs("AWS::CloudFront::Distribution", 1);
  });
});

describe("Console stack", () => {
  it("serves the built console from S3 behind CloudFront, every unknown path answering index.html", () => {
    consoleSite.resourceCountIs("AWS::S3::Bucket", 1);
    consoleSite.hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: "index.html",
        CustomErrorResponses: Match.arrayWith([
          Match.objectLike({ ErrorCode: 403, ResponseCode: 200, ResponsePagePath: "/index.html" }),
          Match.objectLike({ ErrorCode: 404, ResponseCode: 200, ResponsePagePath: "/index.html" }),
        ]),
      }),
    });
    consoleSite.hasOutput("ConsoleUrl", {});
  });

  it("builds the console at the site's root with the API's and the socket's deployed URLs", () => {
    const stack = getStack(Console);
    const site = stack.node.findAll().find((construct): construct is StaticSite => construct instanceof StaticSite)!;
    const { data } = site.getConstructMetadata();
    expect(data.path).toBe("packages/console");
    expect(Object.keys(data.environment).sort()).toEqual(["VITE_API_URL", "VITE_SOCKET_URL"]);
    // Deploy-time values from the Api and Realtime stacks (SST writes them into the built files), not literals.
    expect(JSON.stringify(stack.resolve(data.environment.VITE_API_URL))).toMatch(/"Fn::(ImportValue|Join|GetAtt)"/);
    expect(JSON.stringify(stack.resolve(data.environment.VITE_SOCKET_URL))).toMatch(/^\{"Fn::Join":\["",\["wss:\/\/",/);
  });
});

describe("DataSync stack", () => {
  it("runs the polling gap fill on a schedule, and the data-sync worker may push to the WebSocket API", () => {
    // The poll only queues work; the worker pushes log lines.
    dataSync.hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "rate(5 minutes)", State: "ENABLED" });
    dataSync.hasResourceProperties("AWS::Lambda::Function", {
      Environment: { Variables: Match.objectLike({ QUEUE_URL_DATA_SYNC: Match.anyValue() }) },
    });
    const worker = Object.entries(queues.findResources("AWS::Lambda::Function")).find(([id]) => id.startsWith("ConsumerDataSync"))?.[1];
    expect(worker?.Properties.Environment.Variables).toHaveProperty("WS_MANAGEMENT_ENDPOINT");
    const policies = JSON.stringify(queues.findResources("AWS::IAM::Policy"));
    expect(policies).toContain("execute-api:ManageConnections");
  });

  it("lets the import worker and the backtest tasks push progress to the WebSocket API", () => {
    const importer = Object.entries(queues.findResources("AWS::Lambda::Function")).find(([id]) => id.startsWith("ConsumerStockImport"))?.[1];
    expect(importer?.Properties.Environment.Variables).toHaveProperty("WS_MANAGEMENT_ENDPOINT");
    const workflows = Template.fromStack(getStack(Workflows));
    const tasks = Object.values(workflows.findResources("AWS::Lambda::Function", { Properties: { Timeout: 120 } }));
    expect(tasks.length).toBeGreaterThanOrEqual(4);
    for (const task of tasks) expect(task.Properties.Environment.Variables).toHaveProperty("WS_MANAGEMENT_ENDPOINT");
    expect(JSON.stringify(workflows.findResources("AWS::IAM::Policy"))).toContain("execute-api:ManageConnections");
  });
});

describe("operations through CloudWatch", () => {
  const functionCount = () =>
    [api, queues, dataSync, realtime].reduce(
      (sum, template) => sum + Object.keys(template.findResources("AWS::Lambda::Function", { Properties: { Handler: Match.anyValue() } })).length,
      0,
    );

  it("names an SNS alarm topic in the outputs, and every alarm of the app notifies it", () => {
    alarms.resourceCountIs("AWS::SNS::Topic", 1);
    alarms.hasOutput("AlarmTopicArn", {});
    for (const template of [monitoring, queues]) {
      const all = Object.values(template.findResources("AWS::CloudWatch::Alarm"));
      expect(all.length).toBeGreaterThan(0);
      for (const alarm of all) expect(alarm.Properties.AlarmActions).toHaveLength(1);
    }
  });

  it("alarms on each function's errors and throttles, API 5xx and p99 latency, queue age and DynamoDB throttles", () => {
    const all = Object.values(monitoring.findResources("AWS::CloudWatch::Alarm")).map((alarm) => alarm.Properties);
    const named = (metric: string) => all.filter((alarm) => alarm.MetricName === metric);
    expect(named("Errors").length).toBeGreaterThanOrEqual(25);
    expect(named("Throttles").length).toBe(named("Errors").length);
    expect(named("5xx")).toHaveLength(1);
    expect(named("Latency")).toEqual([expect.objectContaining({ ExtendedStatistic: "p99" })]);
    // One per Lambda-fed job queue: imports, data sync, webhook deliveries.
    expect(named("ApproximateAgeOfOldestMessage")).toHaveLength(3);
    expect(all.some((alarm) => JSON.stringify(alarm.Metrics ?? []).includes("ThrottledRequests"))).toBe(true);
    monitoring.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    expect(functionCount()).toBeGreaterThan(0);
  });

  it("keeps every function's logs a month, and throttles both APIs at the stage", () => {
    for (const template of [api, queues, dataSync, realtime]) {
      const retention = Object.values(template.findResources("Custom::LogRetention")).map((r) => r.Properties.RetentionInDays);
      expect(retention.length).toBeGreaterThan(0);
      expect(new Set(retention)).toEqual(new Set([30]));
    }
    api.hasResourceProperties("AWS::ApiGatewayV2::Stage", { DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 }) });
    realtime.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 }),
    });
  });
});

describe("sweeps beside the API", () => {
  it("reserves concurrency for each workflow task function (a cap), none for the API's functions", () => {
    // Stage "test": sweeps 10 wide, so a chunk 20, Prepare and Finalize 10, a walk-forward's grid chunk 10, the failure task and the sweep's tasks 5.
    const expected: Record<string, number> = {
      BacktestRunChunkTask: 20,
      BacktestPrepareTask: 10,
      BacktestFinalizeTask: 10,
      BacktestFailTask: 5,
      SweepPlanTask: 5,
      SweepRunGridTask: 10,
      SweepFinalizeTask: 5,
      SweepFailTask: 5,
    };
    const tasks = Object.entries(workflows.findResources("AWS::Lambda::Function", { Properties: { Timeout: 120 } }));
    const reserved = Object.fromEntries(tasks.map(([id, fn]) => [id.replace(/[0-9A-F]{8}$/, ""), fn.Properties.ReservedConcurrentExecutions]));
    expect(reserved).toEqual(expected);
    // What they reserve, 70, is kept from an account's default 1,000, leaving the API at least 930.
    expect(Object.values(expected).reduce((sum, n) => sum + n, 0)).toBe(70);
    const apiFunctions = Object.values(api.findResources("AWS::Lambda::Function"));
    expect(apiFunctions.length).toBeGreaterThan(0);
    for (const fn of apiFunctions) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it("deploys the sweep as a Standard state machine whose runs are Express children", () => {
    const sweep = Object.values(workflows.findResources("AWS::StepFunctions::StateMachine")).find(
      (machine: any) => machine.Properties.StateMachineName === "test-trading-platform-sweep",
    ) as any;
    expect(sweep.Properties.StateMachineType).toBe("STANDARD");
    expect(WorkflowExecutionTypes.sweep.children).toEqual({ RunBacktests: "EXPRESS", RunGrid: "EXPRESS" });
  });
});

describe("least privilege", () => {
  /** The actions of every policy attached to a function's role, by the function's logical id prefix. */
  const actionsOf = (template: Template, functionPrefix: string): string[] => {
    const policies = Object.values(template.findResources("AWS::IAM::Policy")).filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(functionPrefix),
    );
    return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement.flatMap((statement: any) => [statement.Action].flat()));
  };

  it("grants each HTTP function only the queues, sockets and workflows it uses", () => {
    const auth = actionsOf(api, "HttpAuth");
    expect(auth.some((action) => action.startsWith("sqs:") || action === "execute-api:ManageConnections" || action === "states:StartExecution")).toBe(false);
    expect(actionsOf(api, "HttpStockImport")).toContain("sqs:SendMessage");
    expect(actionsOf(api, "HttpStockImport")).not.toContain("states:StartExecution");
    expect(actionsOf(api, "HttpBacktest")).toContain("states:StartExecution");
    expect(actionsOf(api, "HttpBacktest").some((action) => action.startsWith("sqs:"))).toBe(false);
    expect(actionsOf(api, "HttpDataSync")).toEqual(expect.arrayContaining(["sqs:SendMessage", "execute-api:ManageConnections"]));
    // Channel commands push their events and channel updates to the session's socket.
    expect(actionsOf(api, "HttpChannels")).toContain("execute-api:ManageConnections");
    expect(actionsOf(api, "HttpChannels")).not.toContain("states:StartExecution");
    // Session lifecycles and inputs tell the session worker through its FIFO command queue: sending only, to that queue only,
    // from the trading function; the channel and MTF functions send none, only the webhook deliveries of what they publish.
    expect(actionsOf(api, "HttpTrading").filter((action) => action.startsWith("sqs:"))).toEqual(["sqs:SendMessage"]);
    const sendsOf = (fn: string) =>
      JSON.stringify(
        Object.values(api.findResources("AWS::IAM::Policy"))
          .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(fn))
          .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
          .filter((statement: any) => statement.Action === "sqs:SendMessage"),
      );
    expect(sendsOf("HttpTrading")).toContain("SessionCommands");
    expect(sendsOf("HttpTrading")).not.toContain("StockImport");
    for (const fn of ["HttpChannels", "HttpMtf"]) {
      expect(
        actionsOf(api, fn).filter((action) => action.startsWith("sqs:")),
        fn,
      ).toEqual(["sqs:SendMessage"]);
      expect(sendsOf(fn), fn).toContain("WebhookDelivery");
      expect(sendsOf(fn), fn).not.toContain("SessionCommands");
    }
    for (const template of [api, queues]) expect(JSON.stringify(template.toJSON())).not.toContain('"sqs:*"');
  });

  it("allows ManageConnections only on the @connections path, and pushes from other stacks only as POST on the stage", () => {
    const manageIn = (template: Template) =>
      Object.values(template.findResources("AWS::IAM::Policy"))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
        .filter((statement: any) => statement.Action === "execute-api:ManageConnections");
    // The socket functions reply to their own connections (SST's grant, on @connections only).
    for (const statement of manageIn(realtime)) expect(JSON.stringify(statement.Resource)).toMatch(/\/@connections\/\*/);
    for (const template of [api, queues]) {
      const statements = manageIn(template);
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) expect(JSON.stringify(statement.Resource)).toContain("/test/POST/@connections/*");
    }
  });

  it("puts HTTPS only in front of the WebSocket API", () => {
    realtime.hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({ DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: "https-only" }) }),
    });
  });

  it("leaves CORS to the app alone: the gateway adds no CORS configuration", () => {
    const apis = Object.values(api.findResources("AWS::ApiGatewayV2::Api"));
    expect(apis).toHaveLength(1);
    expect(apis[0]!.Properties.CorsConfiguration).toBeUndefined();
  });
});
