import { beforeAll, describe, expect, it } from "vitest";
import { Template } from "aws-cdk-lib/assertions";
import { initProject } from "sst/project.js";
import { App, Function, getStack, type FunctionProps } from "sst/constructs";
import config from "../../sst.config";
import { DataSync } from "../../stacks/DataSync";
import { Queues } from "../../stacks/Queues";
import { Worker } from "../../stacks/Worker";
import { Workflows } from "../../stacks/Workflows";
import { TableQueue } from "../../packages/adapters/src/queues/table-queue";
import {
  Queues as QueueRegistry,
  Schedules,
  Workflows as WorkflowRegistry,
  lambdaConsumerOf,
  pascalName,
  type RegisteredQueue,
  type ScheduleEntry,
} from "../../packages/core/src/registry";
import { localBatchSizes, localQueueHandlers, localScheduleHandlers, localWorkflowTasks } from "../../packages/local/src/background";

// The registry of queues, schedules and workflows (packages/core/src/registry.ts) is read by the
// stacks and by the embedded runtime: every entry is a resource of the synthesized template, with
// the registry's settings and handler, and every entry has its handler wired locally.

let stacks: Record<"queues" | "dataSync" | "worker" | "workflows", Template>;
/** Every sst Function of the app by its handler (`packages/functions/src/....handler`). */
let functionsByHandler: Map<string, Function[]>;

beforeAll(async () => {
  process.env.NODE_ENV = "test";
  await initProject({ stage: "test" });
  const app = new App({ mode: "deploy", stage: "test", name: "trading-platform", region: "us-east-1" });
  config.stacks(app);
  stacks = {
    queues: Template.fromStack(getStack(Queues)),
    dataSync: Template.fromStack(getStack(DataSync)),
    worker: Template.fromStack(getStack(Worker)),
    workflows: Template.fromStack(getStack(Workflows)),
  };
  functionsByHandler = new Map();
  for (const stack of [Queues, DataSync, Worker, Workflows])
    for (const construct of getStack(stack).node.findAll())
      if (construct instanceof Function) {
        // The handler as the stack named it (`<module path>.<export>`).
        const handler = (construct as unknown as { props: FunctionProps }).props.handler!;
        functionsByHandler.set(handler, [...(functionsByHandler.get(handler) ?? []), construct]);
      }
}, 300_000);

const queueNames = Object.keys(QueueRegistry) as RegisteredQueue[];
/** The resources of a template whose logical id starts with `prefix` (and does not continue with `DeadLetter`). */
const resourcesOf = (template: Template, type: string, prefix: string) =>
  Object.entries(template.findResources(type)).filter(([id]) => id.startsWith(prefix) && !id.startsWith(`${prefix}DeadLetter`));

describe("the registry in the stacks", () => {
  it.each(queueNames)("deploys the %s queue with the registry's settings and dead-letter queue", (name) => {
    const entry = QueueRegistry[name];
    const found = resourcesOf(stacks.queues, "AWS::SQS::Queue", pascalName(name));
    expect(found).toHaveLength(1);
    const [queueId, queue] = found[0]!;
    expect(queue.Properties.FifoQueue ?? false).toBe(entry.fifo);
    expect(queue.Properties.VisibilityTimeout).toBe(entry.visibilityTimeoutSeconds);
    expect(queue.Properties.RedrivePolicy.maxReceiveCount).toBe(entry.maxReceiveCount);
    expect(queue.Properties.MessageRetentionPeriod).toBe("retentionDays" in entry ? entry.retentionDays * 86_400 : undefined);
    const deadLetters = Object.entries(stacks.queues.findResources("AWS::SQS::Queue")).filter(([id]) => id.startsWith(`${pascalName(name)}DeadLetter`));
    expect(deadLetters.map(([, dl]) => dl.Properties.MessageRetentionPeriod)).toEqual([entry.deadLetterRetentionDays * 86_400]);

    const mappings = Object.values(stacks.queues.findResources("AWS::Lambda::EventSourceMapping")).filter((mapping) =>
      JSON.stringify(mapping.Properties.EventSourceArn).includes(queueId),
    );
    const consumer = lambdaConsumerOf(name);
    if (!consumer) {
      // The session worker polls it: no Lambda is fed from it.
      expect(mappings).toHaveLength(0);
      return;
    }
    expect(mappings.map((mapping) => mapping.Properties.BatchSize)).toEqual([consumer.batchSize]);
    const [fn] = functionsByHandler.get(consumer.handler) ?? [];
    expect(fn, consumer.handler).toBeDefined();
    expect(JSON.stringify(mappings[0]!.Properties.FunctionName)).toContain(getStack(Queues).getLogicalId(fn!.node.defaultChild as never));
    expect(stacks.queues.findResources("AWS::Lambda::Function")[getStack(Queues).getLogicalId(fn!.node.defaultChild as never)]?.Properties.Timeout).toBe(
      consumer.timeoutSeconds,
    );
  });

  it.each(Object.keys(Schedules) as (keyof typeof Schedules)[])("runs the %s schedule's handler or workflow at the registry's rate", (name) => {
    const entry: ScheduleEntry = Schedules[name];
    const template = name === "day-rollover" ? stacks.worker : stacks.dataSync;
    const rules = resourcesOf(template, "AWS::Events::Rule", pascalName(name));
    expect(rules.map(([, rule]) => rule.Properties.ScheduleExpression)).toEqual([entry.schedule]);
    const targets = JSON.stringify(rules[0]![1].Properties.Targets);
    if ("workflow" in entry) {
      // The rule starts the workflow's state machine (an execution with `{}` as its input).
      const [machineId] = resourcesOf(stacks.workflows, "AWS::StepFunctions::StateMachine", `${pascalName(entry.workflow)}StateMachine`)[0]!;
      expect(targets).toContain(machineId);
      expect(rules[0]![1].Properties.Targets[0].Input).toBe("{}");
      return;
    }
    const functions = functionsByHandler.get(entry.handler) ?? [];
    expect(functions).toHaveLength(1);
    const fn = functions[0]!;
    const logicalId = fn.stack.getLogicalId(fn.node.defaultChild as never);
    expect(template.findResources("AWS::Lambda::Function")[logicalId]?.Properties.Timeout).toBe(entry.timeoutSeconds);
    expect(targets).toContain(logicalId);
  });

  it.each(Object.keys(WorkflowRegistry) as (keyof typeof WorkflowRegistry)[])("deploys the %s workflow with a function per task", (name) => {
    const entry = WorkflowRegistry[name];
    expect(resourcesOf(stacks.workflows, "AWS::StepFunctions::StateMachine", `${pascalName(name)}StateMachine`)).toHaveLength(1);
    for (const task of Object.keys(entry.tasks)) {
      const functions = functionsByHandler.get(`${entry.taskModule}.${task}`) ?? [];
      expect(functions, `${name}.${task}`).toHaveLength(1);
      expect(functions[0]!.node.id).toBe(`${pascalName(name)}${pascalName(task)}Task`);
      const logicalId = functions[0]!.stack.getLogicalId(functions[0]!.node.defaultChild as never);
      expect(stacks.workflows.findResources("AWS::Lambda::Function")[logicalId]?.Properties.Timeout).toBe(entry.taskTimeoutSeconds);
    }
  });

  it("deploys nothing of the kind the registry does not name", () => {
    const queueIds = Object.keys(stacks.queues.findResources("AWS::SQS::Queue")).filter((id) => !id.includes("DeadLetter"));
    expect(queueIds).toHaveLength(queueNames.length);
    const rules = [stacks.dataSync, stacks.worker].flatMap((template) => Object.keys(template.findResources("AWS::Events::Rule")));
    expect(rules).toHaveLength(Object.keys(Schedules).length);
    expect(Object.keys(stacks.workflows.findResources("AWS::StepFunctions::StateMachine"))).toHaveLength(Object.keys(WorkflowRegistry).length);
  });
});

describe("the registry in the embedded runtime", () => {
  const services = () => Promise.reject(new Error("not started"));

  it("wires a handler, with the registry's batch size, to every queue a Lambda consumes", () => {
    const lambdaQueues = queueNames.filter((name) => lambdaConsumerOf(name));
    expect(Object.keys(localQueueHandlers(services)).sort()).toEqual([...lambdaQueues].sort());
    for (const handler of Object.values(localQueueHandlers(services))) expect(handler).toBeTypeOf("function");
    expect(localBatchSizes()).toEqual(Object.fromEntries(lambdaQueues.map((name) => [name, lambdaConsumerOf(name)!.batchSize])));
  });

  it("dead-letters a local message after the registry's receives, as SQS does", () => {
    // The table-backed queue holds every queue locally; its one receive budget is each entry's.
    const budget = new TableQueue({} as never, Date.now).options.maxReceives;
    for (const name of queueNames) expect(QueueRegistry[name].maxReceiveCount, name).toBe(budget);
  });

  it("wires a handler to every schedule and every task of every workflow", () => {
    const schedules = localScheduleHandlers(services, { runOnce: async () => ({ status: "SUCCEEDED", output: null }) });
    expect(Object.keys(schedules).sort()).toEqual(Object.keys(Schedules).sort());
    for (const handler of Object.values(schedules)) expect(handler).toBeTypeOf("function");
    const workflows = localWorkflowTasks(services);
    expect(Object.keys(workflows).sort()).toEqual(Object.keys(WorkflowRegistry).sort());
    for (const [name, entry] of Object.entries(WorkflowRegistry)) {
      const tasks = workflows[name as keyof typeof workflows]() as Record<string, unknown>;
      expect(Object.keys(tasks).sort(), name).toEqual(Object.keys(entry.tasks).sort());
    }
  });
});
