import { stockCalendarGroup } from "@tp/api/groups/stock-calendar";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockCalendarGroup);
