export * as Sessions from "./sessions";
export * as SessionViews from "./views";
export * as SessionConfigs from "./session-config";
export * from "./runs";
export { engineOf, updateRun } from "./run-update";
export * as Channels from "./channels";
export * as Mtf from "./mtf";
export * as Replay from "./replay";
export * as SimulationOrders from "./simulation-orders";
