import type { WorkflowUsage } from "../../packages/local/src/workflow-runner";

/**
 * What Step Functions bills, us-east-1 list prices (docs/aws-costs.md "Step Functions", taken
 * 2026-11-29): a Standard workflow's state transition; an Express execution's request, and its
 * duration by memory, rounded up to 100 ms and billed in 64 MB steps (a sweep's child holds a
 * few KB of state: the first step). A Distributed Map is billed one transition for each child
 * execution it starts, Express or Standard.
 */
export const STEP_FUNCTIONS_PRICES = {
  region: "us-east-1",
  taken: "2026-11-29",
  standardTransition: 25 / 1e6,
  expressRequest: 1 / 1e6,
  expressGbSecond: 0.00001667,
  expressMemoryMb: 64,
  expressBilledMs: 100,
} as const;

/** Step Functions' part of some work, from what the local runner metered (`LocalWorkflowRunnerOptions.meter`). */
export interface StepFunctionsBill {
  /** Standard state transitions billed: the Standard executions' states entered, plus one per Distributed Map child started. */
  transitions: number;
  /** Express child executions (requests) and their billed GB-seconds. */
  expressRequests: number;
  expressGbSeconds: number;
  /** Distributed Map children started, and their summed duration (ms) as the local runner ran them. */
  children: number;
  childMs: number;
  /** Dollars as deployed. */
  dollars: number;
  /** Dollars had every child been a Standard execution: each state it entered one more transition. */
  dollarsChildrenStandard: number;
}

/** Prices what the runner metered by the rules above. */
export function priceWorkflows(usage: readonly WorkflowUsage[]): StepFunctionsBill {
  const prices = STEP_FUNCTIONS_PRICES;
  let [standardStates, expressStates, children, childMs, expressRequests, expressGbSeconds] = [0, 0, 0, 0, 0, 0];
  for (const step of usage) {
    if (step.kind === "state") {
      if (step.execution === "STANDARD") standardStates += 1;
      else expressStates += 1;
      continue;
    }
    children += 1;
    childMs += step.ms;
    if (step.execution !== "EXPRESS") continue;
    expressRequests += 1;
    const billedSeconds = (Math.max(1, Math.ceil(step.ms / prices.expressBilledMs)) * prices.expressBilledMs) / 1000;
    expressGbSeconds += billedSeconds * (prices.expressMemoryMb / 1024);
  }
  const transitions = standardStates + children;
  return {
    transitions,
    expressRequests,
    expressGbSeconds,
    children,
    childMs,
    dollars: transitions * prices.standardTransition + expressRequests * prices.expressRequest + expressGbSeconds * prices.expressGbSecond,
    dollarsChildrenStandard: (transitions + expressStates) * prices.standardTransition,
  };
}
