/** A run: the stored state, events and orders of one engine's life, how a save is made (updateRun) and the status events a session's life writes into it. */
export * from "./runs";
export { engineOf, updateRun } from "./update";
export * as RunStatus from "./status";
