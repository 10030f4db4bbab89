/**
 * A trading session: what it is and how it is stored, the dependencies every trading use case takes
 * (deps), its lifecycle, reads, orders, risk and configuration, its own live run and the setup a run is
 * built with, and where its money lives.
 */
export * as Sessions from "./sessions";
export * as SessionLifecycle from "./lifecycle";
export * as SessionReads from "./reads";
export * as SessionOrders from "./orders";
export * as SessionRisk from "./risk";
export * as SessionConfigs from "./config";
export * as SessionFigures from "./figures";
export * as SessionAccounts from "./accounts";
export * as KillSwitchActions from "./kill-switch-actions";
export * as SimulationOrders from "./simulation-orders";
export * as RunSetup from "./run-setup";
export { LiveRuns } from "./live-run";
