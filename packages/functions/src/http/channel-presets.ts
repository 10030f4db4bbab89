import { channelPresetsGroup } from "@tp/api/groups/channel-presets";
import { httpHandler } from "./handler";
export const handler = httpHandler(channelPresetsGroup, () => ({}));
