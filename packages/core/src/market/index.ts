export * from "./market";
export * from "./trade-session";
export * from "./zoned-time";
export * from "./calendar";
export * from "./calendar-data";
export * from "./tick-size";
