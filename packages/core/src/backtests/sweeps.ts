/**
 * Parameter sweeps (the `Sweeps` namespace of index.ts): the model, a request's grid and checks,
 * the control side, the runs read back and ranked, and the state machine's tasks, each in its own
 * module.
 */
export * from "./sweep-model";
export * from "./sweep-request";
export * from "./sweep-control";
export * from "./sweep-result";
export * from "./sweep-tasks";
