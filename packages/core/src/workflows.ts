import { z } from "zod";

/** Step Functions state machines (docs/workflows.md); locally run by aws-local-stepfunctions with the same task handlers. */
export const WorkflowNames = ["backtest"] as const;
export type WorkflowName = (typeof WorkflowNames)[number];

/** What every backtest task receives. */
export const BacktestTaskInput = z.object({ backtest_id: z.string().min(1) });
export type BacktestTaskInput = z.infer<typeof BacktestTaskInput>;

/** What every backtest task answers; the machine's Choice reads `status`. */
export const BacktestTaskOutput = z.object({
  backtest_id: z.string(),
  status: z.enum(["importing", "running", "paused", "stopped", "done"]),
});
export type BacktestTaskOutput = z.infer<typeof BacktestTaskOutput>;

/** Starts workflow executions; names are unique per start (a repeated name is treated as already started). */
export interface WorkflowStarter {
  start(workflow: WorkflowName, executionName: string, input: BacktestTaskInput): Promise<void>;
}
