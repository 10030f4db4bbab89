import { channelsGroup } from "@tp/api/groups/channels";
import { tradingChannels } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(channelsGroup, (c) => ({ trading: { channels: tradingChannels(c) } }));
