import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { ExecutionName, stateMachineArnVariable, type WorkflowInput, type WorkflowName, type WorkflowStarter } from "@tp/core/workflows";
import { awsClient } from "../aws-clients";

/** Step Functions: each workflow's state machine ARN comes from configuration (`STATE_MACHINE_ARN_<NAME>`, set by the Workflows stack). */
export class SfnWorkflowStarter implements WorkflowStarter {
  private client?: Pick<SFNClient, "send">;

  constructor(
    private readonly arns: Partial<Record<WorkflowName, string>>,
    client?: Pick<SFNClient, "send">,
  ) {
    this.client = client;
  }

  async start(workflow: WorkflowName, executionName: string, input: WorkflowInput) {
    const arn = this.arns[workflow];
    if (!arn) throw new Error(`No state machine configured for workflow ${workflow} (${stateMachineArnVariable(workflow)})`);
    this.client ??= awsClient(new SFNClient({}));
    try {
      await this.client.send(new StartExecutionCommand({ stateMachineArn: arn, name: ExecutionName.parse(executionName), input: JSON.stringify(input) }));
    } catch (error) {
      // The name was started before (a retried request): that execution is the one asked for.
      if (error instanceof ExecutionAlreadyExists) return;
      throw error;
    }
  }
}
