export * as Flows from "./flows";
