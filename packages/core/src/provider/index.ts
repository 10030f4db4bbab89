export * from "./clock";
export * from "./enum-input";
export * from "./quote-enums";
export * from "./quote-types";
export * from "./market-data";
export * from "./order-types";
export * from "./order-gateway";
export * from "./quote-requests";
