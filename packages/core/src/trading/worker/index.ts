/** The session worker as the API sees it: the commands sent to it, and its heartbeats and leases. */
export * as WorkerCommands from "./commands";
export * as WorkerStatus from "./status";
