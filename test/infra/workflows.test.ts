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
import { WorkflowDefinitions, WorkflowTasks } from "../../packages/core/src/workflows";

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

const only = (resources: Record<string, any>) => {
  const values = Object.entries(resources);
  expect(values).toHaveLength(1);
  return values[0]!;
};
const taskFunctionIds = () => Object.keys(workflows.findResources("AWS::Lambda::Function", { Properties: { Timeout: 120 } }));

describe("Workflows stack", () => {
  it("runs each backtest task as its own 120 s function with the table, secrets and import queue", () => {
    const ids = taskFunctionIds();
    expect(ids.map((id) => id.replace(/Task[0-9A-F]{8}$/, "")).sort()).toEqual(
      ["BacktestFail", "BacktestFinalize", "BacktestPrepare", "BacktestRunChunk"],
    );
    for (const id of ids) {
      expect(workflows.toJSON().Resources[id].Properties.Environment.Variables).toEqual(
        expect.objectContaining({
          TABLE_NAME: expect.anything(),
          JWT_SECRET_ARN: expect.anything(),
          ENCRYPTION_KEY_ARN: expect.anything(),
          QUEUE_URL_STOCK_IMPORT: expect.anything(),
        }),
      );
    }
  });

  it("deploys the ASL file, each task placeholder substituted with its function's ARN", () => {
    const [, machine] = only(workflows.findResources("AWS::StepFunctions::StateMachine"));
    const ids = taskFunctionIds();
    const substitutions = machine.Properties.DefinitionSubstitutions;
    expect(Object.keys(substitutions).sort()).toEqual(Object.values(WorkflowTasks.backtest).sort());
    for (const [task, placeholder] of Object.entries(WorkflowTasks.backtest)) {
      const id = ids.find((candidate) => candidate.startsWith(`Backtest${task[0]!.toUpperCase()}${task.slice(1)}Task`));
      expect(substitutions[placeholder]).toEqual({ "Fn::GetAtt": [id, "Arn"] });
    }
    expect(machine.Properties.DefinitionS3Location).toBeDefined();
    // The asset the template points at is the very file the embedded runtime runs.
    const asset = getStack(Workflows).node.findAll().find((construct): construct is Asset => construct instanceof Asset && construct.node.id === "DefinitionBody")!;
    const deployed = JSON.parse(readFileSync(join(app.outdir, asset.assetPath), "utf8"));
    expect(deployed).toEqual(WorkflowDefinitions.backtest.definition);
    expect(Object.keys(deployed.States).sort()).toEqual(
      ["Done", "Failed", "Finalize", "MarkFailed", "Paused", "Prepare", "RouteByStatus", "RunChunk", "WaitForImports"],
    );
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

  it("lets the machine's role invoke the four task functions and nothing else", () => {
    const [, machine] = only(workflows.findResources("AWS::StepFunctions::StateMachine"));
    const roleId = machine.Properties.RoleArn["Fn::GetAtt"][0];
    const policies = Object.values(workflows.findResources("AWS::IAM::Policy")).filter((policy: any) =>
      policy.Properties.Roles.some((role: any) => role.Ref === roleId),
    );
    const statements = policies.flatMap((policy: any) => policy.Properties.PolicyDocument.Statement);
    const invokes = statements.filter((statement: any) => [statement.Action].flat().includes("lambda:InvokeFunction"));
    const invoked = invokes.flatMap((statement: any) => statement.Resource).map((resource: any) => JSON.stringify(resource));
    const expected = taskFunctionIds().flatMap((id) => [
      JSON.stringify({ "Fn::GetAtt": [id, "Arn"] }),
      JSON.stringify({ "Fn::Join": ["", [{ "Fn::GetAtt": [id, "Arn"] }, ":*"]] }),
    ]);
    expect(invoked.sort()).toEqual(expected.sort());
    // Besides invoking, only the log delivery and X-Ray, which Step Functions needs for them.
    const others = statements.filter((statement: any) => !invokes.includes(statement)).flatMap((statement: any) => [statement.Action].flat());
    expect(others.every((action: string) => action.startsWith("logs:") || action.startsWith("xray:"))).toBe(true);
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

  it("gives every API function the machine's ARN, and StartExecution on that machine only to those that start backtests", () => {
    const httpFunctions = Object.entries(api.findResources("AWS::Lambda::Function")).filter(([id]) => id.startsWith("Http"));
    expect(httpFunctions.length).toBeGreaterThan(0);
    for (const [, fn] of httpFunctions) {
      expect(fn.Properties.Environment.Variables.STATE_MACHINE_ARN_BACKTEST).toEqual(expect.anything());
    }
    const starts = Object.values(api.findResources("AWS::IAM::Policy"))
      .flatMap((policy: any) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: any) => [statement.Action].flat().includes("states:StartExecution"));
    // The backtest group's function alone.
    expect(starts.length).toBe(1);
    for (const statement of starts) {
      expect([statement.Action].flat()).toEqual(["states:StartExecution"]);
      expect([statement.Resource].flat()).toHaveLength(1);
    }
  });
});
