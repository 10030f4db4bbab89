import { tradingGroup } from "@tp/api/groups/trading";
import { tradingSessions } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(tradingGroup, (c) => ({ trading: { sessions: tradingSessions(c) } }));
