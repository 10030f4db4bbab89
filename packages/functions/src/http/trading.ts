import { tradingGroup } from "@tp/api/groups/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(tradingGroup);
