import { stockDataGroup } from "@tp/api/groups/stock-data";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockDataGroup);
