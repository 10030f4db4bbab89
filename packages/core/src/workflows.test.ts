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

  it.each(WorkflowNames)("%s: its Task states name exactly the declared tasks' placeholders", (workflow) => {
    const states = Object.values((WorkflowDefinitions[workflow].definition as { States: Record<string, { Type: string; Resource?: string }> }).States);
    const resources = new Set(states.filter((state) => state.Type === "Task").map((state) => state.Resource));
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
