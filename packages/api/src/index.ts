export { createApp, createGroupApp } from "./app";
export { groups, type GroupName } from "./groups";
