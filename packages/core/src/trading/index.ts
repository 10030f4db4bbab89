/**
 * Trading, in layers (each folder imports only those before it): worker (the session worker's commands
 * and heartbeats), run (a run's stored life), session, channels, drivers. Each folder's index names its
 * namespaces.
 */
export * from "./session/index";
export * from "./channels/index";
export * from "./run/index";
export * from "./drivers/index";
export * from "./worker/index";
