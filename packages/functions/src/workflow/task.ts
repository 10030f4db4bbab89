import type { Context } from "aws-lambda";
import type { z } from "zod";
import type { Services } from "@tp/adapters/services";

/** Leaves this much of the invocation for writing the checkpoint and answering the state machine. */
const SAFETY_MARGIN_MS = 20_000;
/** Without a Lambda context (the embedded runtime's local runner), a task works this long. */
export const LOCAL_TASK_BUDGET_MS = 20_000;

/** A workflow task as Lambda (or the local runner) invokes it: the state's input in, the state's output out. */
export type WorkflowTaskHandler<Output> = (event: unknown, context?: Pick<Context, "getRemainingTimeInMillis">) => Promise<Output>;

/**
 * A Step Functions task over a composition root: parses the state's input with `input`, gives
 * the work a deadline (epoch ms, from the invocation's remaining time, or the local budget) and
 * checks what it answers with `output`, so a wrong answer fails the task instead of the Choice.
 */
export function workflowTask<S extends Pick<Services, "now">, Input extends z.ZodType, Output extends z.ZodType>(
  services: () => Promise<S>,
  schemas: { input: Input; output: Output },
  work: (services: S, input: z.output<Input>, deadlineMs: number) => Promise<z.input<Output>>,
): WorkflowTaskHandler<z.output<Output>> {
  return async (event, context) => {
    const resolved = await services();
    const deadlineMs = resolved.now() + (context ? context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS : LOCAL_TASK_BUDGET_MS);
    const input = schemas.input.parse(event);
    return schemas.output.parse(await work(resolved, input, deadlineMs));
  };
}
