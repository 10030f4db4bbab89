import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  WorkflowDefinitions,
  WorkflowExecutionTypes,
  WorkflowNames,
  WorkflowTasks,
  distributedMaps,
  stateExecutionTypes,
  stateMachineArnVariable,
} from "./workflows";

describe("workflow definitions", () => {
  it.each(WorkflowNames)("%s: the file the stack deploys is the definition the embedded runtime runs", (workflow) => {
    const { file, definition } = WorkflowDefinitions[workflow];
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(definition);
  });

  it.each(WorkflowNames)("%s: its Task states, a Map's included, name exactly the declared tasks' placeholders (and other workflows' tasks)", (workflow) => {
    type State = { Type: string; Resource?: string; ItemProcessor?: { States: Record<string, State> } };
    const tasksOf = (states: Record<string, State>): string[] =>
      Object.values(states).flatMap((state) => [
        ...(state.Type === "Task" && state.Resource ? [state.Resource] : []),
        ...(state.ItemProcessor ? tasksOf(state.ItemProcessor.States) : []),
      ]);
    const others = new Set(
      WorkflowNames.filter((other) => other !== workflow).flatMap((other) => Object.values(WorkflowTasks[other]).map((placeholder) => `\${${placeholder}}`)),
    );
    const resources = new Set(tasksOf((WorkflowDefinitions[workflow].definition as { States: Record<string, State> }).States).filter((r) => !others.has(r)));
    expect([...resources].sort()).toEqual(
      Object.values(WorkflowTasks[workflow])
        .map((placeholder) => `\${${placeholder}}`)
        .sort(),
    );
  });

  it.each(WorkflowNames)("%s: its Distributed Maps' child types are the ones declared in WorkflowExecutionTypes", (workflow) => {
    expect(distributedMaps(workflow)).toEqual(WorkflowExecutionTypes[workflow].children);
  });

  it("runs the sweep's own states in its Standard execution and each run's states in an Express child", () => {
    const types = stateExecutionTypes("sweep");
    expect([types.Plan, types.RunBacktests, types.Finalize]).toEqual(["STANDARD", "STANDARD", "STANDARD"]);
    expect([types.RunPrepare, types.RunChunk, types.RunAfterChunk, types.RunYield, types.RunFinalize]).toEqual(Array(5).fill("EXPRESS"));
    expect(new Set(Object.values(stateExecutionTypes("backtest")))).toEqual(new Set(["STANDARD"]));
  });

  it("names the ARN variable after the workflow", () => {
    expect(stateMachineArnVariable("backtest")).toBe("STATE_MACHINE_ARN_BACKTEST");
  });
});
