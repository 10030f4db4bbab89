import { channelsGroup } from "@tp/api/groups/channels";
import { httpHandler } from "./handler";
export const handler = httpHandler(channelsGroup);
