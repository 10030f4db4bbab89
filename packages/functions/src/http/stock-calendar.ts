import { stockCalendarGroup } from "@tp/api/groups/stock-calendar";
import { calendar } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockCalendarGroup, (c) => ({ calendar: calendar(c) }));
