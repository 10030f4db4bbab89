import { join } from "node:path";
import { ArnFormat, Duration } from "aws-cdk-lib";
import { Alarm, ComparisonOperator, TreatMissingData, type Metric } from "aws-cdk-lib/aws-cloudwatch";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from "aws-cdk-lib/aws-stepfunctions";
import { Function, use, type StackContext } from "sst/constructs";
import { useProject } from "sst/project.js";
import {
  WorkflowExecutionTypes,
  WorkflowNames,
  distributedMaps,
  placeholdersOf,
  stateMachineArnVariable,
  type WorkflowName,
} from "../packages/core/src/workflows";
import { Workflows as WorkflowRegistry, pascalName as pascal } from "../packages/core/src/registry";
import { Queues } from "./Queues";
import { Storage } from "./Storage";
import { Alarms } from "./Alarms";
import { buildProps, workflowReservedConcurrency } from "./functions";
import { sweepMaxConcurrency } from "./stage";

/** The workflows the API's functions start (the day rollover is started by its schedule's rule alone). */
const STARTED_BY_THE_API: readonly WorkflowName[] = ["backtest", "sweep"];

/**
 * One Step Functions state machine per workflow of the registry (packages/core/src/registry.ts), deployed from its ASL file with each Task's
 * `${...}` Resource substituted by its task function's ARN; the machine may invoke only those
 * functions, logs every event, is traced, and raises an alarm on any failed, timed-out or aborted
 * execution. The task functions get the table, the secrets and the queues (Prepare enqueues imports).
 */
export function Workflows({ stack, app }: StackContext) {
  const { table, secrets } = use(Storage);
  const { queueEnvironment, sendTo } = use(Queues);
  const { notify } = use(Alarms);
  const stateMachines = {} as Record<WorkflowName, StateMachine>;
  const taskFunctions: Function[] = [];
  const workflowEnvironment: Record<string, string> = {};
  // Every task's function first: a machine may name another workflow's tasks (a sweep runs each
  // of its backtests with the backtest's own functions).
  const byPlaceholder = new Map<string, Function>();
  const concurrency = workflowReservedConcurrency(app.stage);
  const reserved = (workflow: WorkflowName, task: string) =>
    concurrency[`${workflow}.${task}`] === undefined ? {} : { reservedConcurrentExecutions: concurrency[`${workflow}.${task}`] };
  for (const workflow of WorkflowNames) {
    const { tasks, taskModule, taskTimeoutSeconds } = WorkflowRegistry[workflow];
    for (const [task, placeholder] of Object.entries(tasks)) {
      const fn = new Function(stack, `${pascal(workflow)}${pascal(task)}Task`, {
        handler: `${taskModule}.${task}`,
        timeout: taskTimeoutSeconds,
        // A cap (and a share of the account's concurrency kept) for each task: sweeps cannot take what the API needs.
        ...reserved(workflow, task),
        ...buildProps({ provider: true }),
        // SWEEP_MAX_CONCURRENCY: the sweep's Plan answers it as the Map's MaxConcurrency.
        environment: {
          TABLE_NAME: table.tableName,
          ...secrets.environment,
          ...queueEnvironment,
          SWEEP_MAX_CONCURRENCY: String(sweepMaxConcurrency(app.stage)),
        },
        // Prepare queues the imports of missing candles; a backtest's or a sweep's end, its webhook deliveries.
        permissions: [table, sendTo(["stock-import", "webhook-delivery"])],
      });
      secrets.grantRead(fn);
      byPlaceholder.set(placeholder, fn);
      taskFunctions.push(fn);
    }
  }
  for (const workflow of WorkflowNames) {
    const name = pascal(workflow);
    const functions = placeholdersOf(workflow).map((placeholder) => byPlaceholder.get(placeholder)!);
    const definitionSubstitutions = Object.fromEntries(
      placeholdersOf(workflow).map((placeholder) => [placeholder, byPlaceholder.get(placeholder)!.functionArn]),
    );
    // A Distributed Map runs its items as child executions of the machine itself: its name is
    // fixed so its role can name its own ARN without a circular reference.
    const children = distributedMaps(workflow);
    const distributed = Object.keys(children).length > 0;
    const stateMachineName = distributed ? app.logicalPrefixedName(workflow) : undefined;
    const stateMachine = new StateMachine(stack, `${name}StateMachine`, {
      definitionBody: DefinitionBody.fromFile(join(useProject().paths.root, WorkflowRegistry[workflow].file)),
      definitionSubstitutions,
      // Standard or Express as decided per workflow (docs/workflows.md "Standard or Express"); the children's type is in the ASL file.
      stateMachineType: StateMachineType[WorkflowExecutionTypes[workflow].machine],
      ...(stateMachineName ? { stateMachineName } : {}),
      tracingEnabled: true,
      logs: {
        level: LogLevel.ALL,
        includeExecutionData: true,
        // Under /aws/vendedlogs/ so the log delivery's resource policy does not grow with every machine.
        destination: new LogGroup(stack, `${name}StateMachineLogs`, {
          logGroupName: `/aws/vendedlogs/states/${app.logicalPrefixedName(workflow)}`,
          retention: RetentionDays.ONE_MONTH,
        }),
      },
    });
    for (const fn of functions) fn.grantInvoke(stateMachine);
    if (stateMachineName) {
      // The Distributed Map's child executions: start them, follow and stop them (AWS's documented policy).
      stateMachine.addToRolePolicy(
        new PolicyStatement({
          actions: ["states:StartExecution"],
          resources: [
            stack.formatArn({ service: "states", resource: "stateMachine", resourceName: stateMachineName, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
          ],
        }),
      );
      // Child executions are named under `execution:<name>/…`; Express executions' ARNs say `express:`, so theirs are granted too.
      const childResources = ["execution", ...(Object.values(children).includes("EXPRESS") ? ["express"] : [])];
      stateMachine.addToRolePolicy(
        new PolicyStatement({
          actions: ["states:DescribeExecution", "states:StopExecution"],
          resources: childResources.map((resource) =>
            stack.formatArn({ service: "states", resource, resourceName: `${stateMachineName}/*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
          ),
        }),
      );
    }
    const alarms: [string, Metric][] = [
      ["Failed", stateMachine.metricFailed({ period: Duration.minutes(1) })],
      ["TimedOut", stateMachine.metricTimedOut({ period: Duration.minutes(1) })],
      ["Aborted", stateMachine.metricAborted({ period: Duration.minutes(1) })],
    ];
    for (const [outcome, metric] of alarms) {
      const executionAlarm = new Alarm(stack, `${name}Executions${outcome}Alarm`, {
        alarmDescription: `A ${workflow} execution ended ${outcome.toLowerCase()}`,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      notify(executionAlarm);
    }
    stateMachines[workflow] = stateMachine;
    if (STARTED_BY_THE_API.includes(workflow)) workflowEnvironment[stateMachineArnVariable(workflow)] = stateMachine.stateMachineArn;
  }
  /** What a function needs to start the workflows: StartExecution on these machines only. */
  const startWorkflows = new PolicyStatement({
    actions: ["states:StartExecution"],
    resources: STARTED_BY_THE_API.map((workflow) => stateMachines[workflow].stateMachineArn),
  });
  return { stateMachine: stateMachines.backtest, stateMachines, workflowEnvironment, startWorkflows, functions: taskFunctions };
}
