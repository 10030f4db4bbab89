/**
 * Parameter sweeps (the `Sweeps` namespace of index.ts): the model, the control side and the
 * state machine's tasks, each in its own module.
 */
export * from "./sweep-model";
export * from "./sweep-control";
export * from "./sweep-tasks";
