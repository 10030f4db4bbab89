import { describe, expect, it } from "vitest";
import { ExecutionAlreadyExists, type StartExecutionCommand } from "@aws-sdk/client-sfn";
import { SfnWorkflowStarter } from "./sfn-starter";

const ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:Backtest";

/** A Step Functions client that records commands and answers with `answer`. */
function fakeClient(answer: () => Promise<unknown> = async () => ({})) {
  const sent: StartExecutionCommand[] = [];
  return { sent, client: { send: async (command: StartExecutionCommand) => (sent.push(command), answer()) } as any };
}

describe("the Step Functions workflow starter", () => {
  it("starts an execution of the configured machine with the name and the input as JSON", async () => {
    const { sent, client } = fakeClient();
    await new SfnWorkflowStarter({ backtest: ARN }, client).start("backtest", "bt-1-1", { backtest_id: "bt-1" });
    expect(sent.map((command) => command.input)).toEqual([{ stateMachineArn: ARN, name: "bt-1-1", input: JSON.stringify({ backtest_id: "bt-1" }) }]);
  });

  it("treats a name that already exists as started", async () => {
    const { client } = fakeClient(() => Promise.reject(new ExecutionAlreadyExists({ message: "exists", $metadata: {} })));
    await expect(new SfnWorkflowStarter({ backtest: ARN }, client).start("backtest", "bt-1-1", { backtest_id: "bt-1" })).resolves.toBeUndefined();
  });

  it("passes any other failure on", async () => {
    const { client } = fakeClient(() => Promise.reject(new Error("throttled")));
    await expect(new SfnWorkflowStarter({ backtest: ARN }, client).start("backtest", "bt-1-1", { backtest_id: "bt-1" })).rejects.toThrow("throttled");
  });

  it("refuses a workflow without a configured machine, naming the variable", async () => {
    const { sent, client } = fakeClient();
    await expect(new SfnWorkflowStarter({}, client).start("backtest", "bt-1-1", { backtest_id: "bt-1" })).rejects.toThrow(
      "No state machine configured for workflow backtest (STATE_MACHINE_ARN_BACKTEST)",
    );
    expect(sent).toEqual([]);
  });
});
