import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Match, Template } from "aws-cdk-lib/assertions";
import { Asset } from "aws-cdk-lib/aws-s3-assets";
import { initProject } from "sst/project.js";
import { App, getStack } from "sst/constructs";
import { Api } from "../../stacks/Api";
import { Workflows } from "../../stacks/Workflows";
import config from "../../sst.config";
import { WorkflowDefinitions, WorkflowExecutionTypes, WorkflowTasks } from "../../packages/core/src/workflows";

let app: App;
let workflows: Template;
let api: Template;

beforeAll(async () => {
  await initProject({ stage: "test" });
  app = new App({ mode: "deploy", stage: "test", name: "trading-platform", region: "us-east-1" });
  config.stacks(app);
  workflows = Template.fromStack(getStack(Workflows));
  api = Template.fromStack(getStack(Api));
}, 300_000);

/** The state machine whose substitutions name `placeholder` first of its own (the backtest's or the sweep's). */
const machineOf = (workflow: "backtest" | "sweep"): [string, any] => {
  const own = Object.values(WorkflowTasks[workflow])[0];
  const found = Object.entries(workflows.findResources("AWS::StepFunctions::StateMachine")).filter(
    ([, machine]: [string, any]) =>
      Object.keys(machine.Properties.DefinitionSubstitutions).includes(own) &&
      (workflow === "sweep" || !Object.keys(machine.Properties.DefinitionSubstitutions).includes(WorkflowTasks.sweep.plan)),
  );
  expect(found).toHaveLength(1);
  return found[0]!;
};
const taskFunctionIds = (prefix = "") =>
  Object.keys(workflows.findResources("AWS::Lambda::Function", { Properties: { Timeout: 120 } })).filter((id) => id.startsWith(prefix));
/** The definition file the template's asset holds for a machine (the very file the embedded runtime runs). */
const deployedDefinition = (workflow: "backtest" | "sweep") => {
  const asset = getStack(Workflows)
    .node.findAll()
    .find(
      (construct): construct is Asset =>
        construct instanceof Asset &&
        construct.node.id === "DefinitionBody" &&
        construct.node.path.includes(`${workflow === "backtest" ? "Backtest" : "Sweep"}StateMachine`),
    )!;
  return JSON.parse(readFileSync(join(app.outdir, asset.assetPath), "utf8"));
};
/** Resources the machine's role may invoke as functions, and its other actions. */
function rolePermissions(machine: any) {
  const roleId = machine.Properties.RoleArn["Fn::GetAtt"][0];
  const policies = Object.values(workflows.findResources("AWS::IAM::Policy")).filter((policy: any) =>
    policy.Properties.Roles.some((role: any) => role.Ref === roleId),
  );
  const statements = policies.flatMap((policy: any) => policy.Properties.PolicyDocument.Statement);
  const invokes = statements.filter((statement: any) => [statement.Action].flat().includes("lambda:InvokeFunction"));
  return { statements, invokes, invoked: invokes.flatMap((statement: any) => statement.Resource).map((resource: any) => JSON.stringify(resource)) };
}
const invocable = (ids: string[]) =>
  ids.flatMap((id) => [JSON.stringify({ "Fn::GetAtt": [id, "Arn"] }), JSON.stringify({ "Fn::Join": ["", [{ "Fn::GetAtt": [id, "Arn"] }, ":*"]] })]);

describe("Workflows stack", () => {
  it("runs each backtest, sweep and day rollover task as its own 120 s function with the table, secrets and import queue", () => {
    const ids = taskFunctionIds();
    expect(ids.map((id) => id.replace(/Task[0-9A-F]{8}$/, "")).sort()).toEqual([
      "BacktestFail",
      "BacktestFinalize",
      "BacktestPrepare",
      "BacktestRunChunk",
      "DayRolloverCalendars",
      "DayRolloverPlan",
      "DayRolloverRoll",
      "SweepFail",
      "SweepFinalize",
      "SweepPlan",
      "SweepRunGrid",
    ]);
    for (const id of ids) {
      expect(workflows.toJSON().Resources[id].Properties.Environment.Variables).toEqual(
        expect.objectContaining({
          TABLE_NAME: expect.anything(),
          JWT_SECRET_ARN: expect.anything(),
          ENCRYPTION_KEY_ARN: expect.anything(),
          QUEUE_URL_STOCK_IMPORT: expect.anything(),
          // The stage's setting for a sweep's Map (10 off production).
          SWEEP_MAX_CONCURRENCY: "10",
        }),
      );
    }
  });

  it("deploys the ASL file, each task placeholder substituted with its function's ARN", () => {
    const [, machine] = machineOf("backtest");
    const ids = taskFunctionIds("Backtest");
    const substitutions = machine.Properties.DefinitionSubstitutions;
    expect(Object.keys(substitutions).sort()).toEqual(Object.values(WorkflowTasks.backtest).sort());
    for (const [task, placeholder] of Object.entries(WorkflowTasks.backtest)) {
      const id = ids.find((candidate) => candidate.startsWith(`Backtest${task[0]!.toUpperCase()}${task.slice(1)}Task`));
      expect(substitutions[placeholder]).toEqual({ "Fn::GetAtt": [id, "Arn"] });
    }
    expect(machine.Properties.DefinitionS3Location).toBeDefined();
    // The asset the template points at is the very file the embedded runtime runs.
    const deployed = deployedDefinition("backtest");
    expect(deployed).toEqual(WorkflowDefinitions.backtest.definition);
    expect(Object.keys(deployed.States).sort()).toEqual([
      "Done",
      "Failed",
      "Finalize",
      "MarkFailed",
      "Paused",
      "Prepare",
      "RouteByStatus",
      "RunChunk",
      "WaitForImports",
    ]);
    expect(deployed.States.RouteByStatus.Choices.map((choice: any) => [choice.StringEquals, choice.Next])).toEqual([
      ["importing", "WaitForImports"],
      ["running", "RunChunk"],
      ["paused", "Paused"],
      ["stopped", "Finalize"],
      ["done", "Finalize"],
    ]);
    for (const task of ["Prepare", "RunChunk", "Finalize"]) {
      expect(deployed.States[task].Catch).toEqual([{ ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "MarkFailed" }]);
    }
    for (const task of ["Prepare", "RunChunk", "Finalize", "MarkFailed"]) {
      expect(deployed.States[task].Retry[0].ErrorEquals).toEqual([
        "Lambda.ServiceException",
        "Lambda.AWSLambdaException",
        "Lambda.SdkClientException",
        "Lambda.TooManyRequestsException",
      ]);
    }
  });

  it("logs every event to a log group with retention, and traces executions", () => {
    workflows.hasResourceProperties("AWS::StepFunctions::StateMachine", {
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: "ALL", IncludeExecutionData: true }),
    });
    workflows.hasResourceProperties("AWS::Logs::LogGroup", {
      LogGroupName: "/aws/vendedlogs/states/test-trading-platform-backtest",
      RetentionInDays: 30,
    });
  });

  it("lets the backtest machine's role invoke the four backtest task functions and nothing else", () => {
    const [, machine] = machineOf("backtest");
    const { statements, invokes, invoked } = rolePermissions(machine);
    expect(invoked.sort()).toEqual(invocable(taskFunctionIds("Backtest")).sort());
    // Besides invoking, only the log delivery and X-Ray, which Step Functions needs for them.
    const others = statements.filter((statement: any) => !invokes.includes(statement)).flatMap((statement: any) => [statement.Action].flat());
    expect(others.every((action: string) => action.startsWith("logs:") || action.startsWith("xray:"))).toBe(true);
  });

  it("deploys the sweep machine: a Distributed Map over the runs, each the backtest's own task functions, its concurrency from Plan's answer", () => {
    const [, machine] = machineOf("sweep");
    const substitutions = machine.Properties.DefinitionSubstitutions;
    expect(Object.keys(substitutions).sort()).toEqual([...Object.values(WorkflowTasks.sweep), ...Object.values(WorkflowTasks.backtest)].sort());
    for (const id of [...taskFunctionIds("Backtest"), ...taskFunctionIds("Sweep")]) {
      const placeholder = Object.entries(substitutions).find(([, value]: [string, any]) => value["Fn::GetAtt"][0] === id)?.[0];
      expect(placeholder, id).toBeDefined();
    }
    expect(machine.Properties.StateMachineName).toBe("test-trading-platform-sweep");
    const deployed = deployedDefinition("sweep");
    expect(deployed).toEqual(WorkflowDefinitions.sweep.definition);
    const map = deployed.States.RunBacktests;
    expect(map).toMatchObject({
      Type: "Map",
      ItemsPath: "$.runs",
      MaxConcurrencyPath: "$.max_concurrency",
      ItemSelector: { "backtest_id.$": "$$.Map.Item.Value" },
      // Express children: each run's child is one pass (Prepare, at most one chunk, Finalize), under Express's 5 minutes.
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "EXPRESS" } },
      ResultPath: null,
      Next: "Plan",
    });
    const inner = map.ItemProcessor.States;
    expect([inner.RunPrepare.Resource, inner.RunChunk.Resource, inner.RunFinalize.Resource, inner.RunMarkFailed.Resource]).toEqual(
      ["prepare", "runChunk", "finalize", "fail"].map((task) => `\${${WorkflowTasks.backtest[task as keyof typeof WorkflowTasks.backtest]}}`),
    );
    // A failed run is recorded and the sweep goes on.
    expect(inner.RunFailed.Type).toBe("Succeed");
    // The cut: after a chunk, a run not done ends its child (RunYield) and Plan answers it again; no Wait inside a child.
    expect(inner.RunChunk.Next).toBe("RunAfterChunk");
    expect(inner.RunAfterChunk.Choices.map((choice: any) => [choice.StringEquals, choice.Next])).toEqual([
      ["running", "RunYield"],
      ["importing", "RunYield"],
      ["paused", "RunPaused"],
      ["stopped", "RunFinalize"],
      ["done", "RunFinalize"],
    ]);
    expect(inner.RunYield.Type).toBe("Succeed");
    expect(Object.values(inner).some((state: any) => state.Type === "Wait")).toBe(false);
    expect(deployed.States.RouteByStatus.Choices.map((choice: any) => [choice.StringEquals, choice.Next])).toEqual([
      ["importing", "WaitForImports"],
      ["running", "RunBacktests"],
      ["grid", "RunGrid"],
      ["paused", "Paused"],
      ["stopped", "Finalize"],
      ["done", "Finalize"],
    ]);
    // A walk-forward's grid: a Distributed Map over its chunks, each child the sweep's RunGrid task, then Plan again; a chunk that fails fails the sweep.
    expect(deployed.States.RunGrid).toMatchObject({
      Type: "Map",
      ItemsPath: "$.grid",
      MaxConcurrencyPath: "$.max_concurrency",
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "EXPRESS" }, StartAt: "GridChunk" },
      ResultPath: null,
      Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "MarkFailed" }],
      Next: "Plan",
    });
    expect(deployed.States.RunGrid.ItemProcessor.States.GridChunk).toMatchObject({ Type: "Task", Resource: `\${${WorkflowTasks.sweep.runGrid}}`, End: true });
    // Its role invokes the eight task functions, and starts, follows and stops its own child executions.
    const { statements, invoked } = rolePermissions(machine);
    expect(invoked.sort()).toEqual(invocable([...taskFunctionIds("Backtest"), ...taskFunctionIds("Sweep")]).sort());
    const text = JSON.stringify(statements);
    expect(text).toContain("stateMachine:test-trading-platform-sweep");
    expect(text).toContain("execution:test-trading-platform-sweep/*");
    expect(text).toContain("express:test-trading-platform-sweep/*");
    const actions = statements.flatMap((statement: any) => [statement.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(["states:StartExecution", "states:DescribeExecution", "states:StopExecution"]));
    workflows.hasResourceProperties("AWS::Logs::LogGroup", { LogGroupName: "/aws/vendedlogs/states/test-trading-platform-sweep", RetentionInDays: 30 });
  });

  it("deploys the day rollover: a Distributed Map over the live list's shards, Express children, its own three task functions", () => {
    const [id, machine] = Object.entries(workflows.findResources("AWS::StepFunctions::StateMachine")).find(([, m]: [string, any]) =>
      Object.keys(m.Properties.DefinitionSubstitutions).includes(WorkflowTasks["day-rollover"].plan),
    )!;
    expect(id).toMatch(/^DayRolloverStateMachine/);
    expect(Object.keys(machine.Properties.DefinitionSubstitutions).sort()).toEqual(Object.values(WorkflowTasks["day-rollover"]).sort());
    expect(machine.Properties.StateMachineType).toBe("STANDARD");
    expect(machine.Properties.StateMachineName).toBe("test-trading-platform-day-rollover");
    const map = WorkflowDefinitions["day-rollover"].definition as any;
    expect(map.States.RollShards).toMatchObject({
      Type: "Map",
      ItemsPath: "$.shards",
      ItemSelector: { "shard.$": "$$.Map.Item.Value", "at.$": "$.at" },
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "EXPRESS" } },
      Next: "Calendars",
    });
    // The Map keeps the shards' counts and symbols: its result stays small at any number of sessions.
    expect(map.States.RollShards.ItemProcessor.States.RollShard.ResultSelector).toEqual({
      "sessions.$": "$.sessions",
      "rolled.$": "$.rolled_count",
      "symbols.$": "$.symbols",
    });
    const { invoked } = rolePermissions(machine);
    expect(invoked.sort()).toEqual(invocable(taskFunctionIds("DayRollover")).sort());
    // Its roll pushes the rolled sessions' events, as every workflow task may push (the DataSync stack grants the sockets).
    for (const fnId of taskFunctionIds("DayRollover"))
      expect(workflows.toJSON().Resources[fnId].Properties.Environment.Variables.WS_MANAGEMENT_ENDPOINT).toEqual(expect.anything());
  });

  it("deploys both machines as Standard workflows, the types WorkflowExecutionTypes declares", () => {
    for (const workflow of ["backtest", "sweep"] as const) {
      const [, machine] = machineOf(workflow);
      expect(machine.Properties.StateMachineType).toBe(WorkflowExecutionTypes[workflow].machine);
      expect(machine.Properties.StateMachineType).toBe("STANDARD");
    }
  });

  it("alarms on any failed, timed-out or aborted execution", () => {
    for (const metric of ["ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsAborted"]) {
      workflows.hasResourceProperties("AWS::CloudWatch::Alarm", {
        Namespace: "AWS/States",
        MetricName: metric,
        Threshold: 1,
        ComparisonOperator: "GreaterThanOrEqualToThreshold",
        TreatMissingData: "notBreaching",
      });
    }
  });

  it("gives every API function the machines' ARNs, and StartExecution on those machines only to those that start backtests and sweeps", () => {
    const httpFunctions = Object.entries(api.findResources("AWS::Lambda::Function")).filter(([id]) => id.startsWith("Http"));
    expect(httpFunctions.length).toBeGreaterThan(0);
    for (const [, fn] of httpFunctions) {
      expect(fn.Properties.Environment.Variables.STATE_MACHINE_ARN_BACKTEST).toEqual(expect.anything());
      expect(fn.Properties.Environment.Variables.STATE_MACHINE_ARN_SWEEP).toEqual(expect.anything());
    }
    const starts = Object.values(api.findResources("AWS::IAM::Policy"))
      .flatMap((policy: any) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: any) => [statement.Action].flat().includes("states:StartExecution"));
    // The backtest group's function and the sweeps group's.
    expect(starts.length).toBe(2);
    for (const statement of starts) {
      expect([statement.Action].flat()).toEqual(["states:StartExecution"]);
      expect([statement.Resource].flat()).toHaveLength(2);
    }
  });
});
