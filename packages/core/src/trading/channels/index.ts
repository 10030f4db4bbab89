/** A session's channels: their configuration and its versions, commands, alerts, figures, status and the update feed they stream. */
export * as ChannelReads from "./reads";
export * as ChannelAlerts from "./alerts";
export * as ChannelActions from "./actions";
export * as ChannelConfig from "./config";
export * as ChannelStream from "./stream";
export * as ChannelSchemas from "./schemas";
export * as ChannelCommands from "./commands";
export * as ChannelFigures from "./figures";
