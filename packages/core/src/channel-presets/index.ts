export * as ChannelPresets from "./channel-presets";
export * as Jsonc from "./jsonc";
