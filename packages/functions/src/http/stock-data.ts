import { stockDataGroup } from "@tp/api/groups/stock-data";
import { candles } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockDataGroup, (c) => ({ candles: candles(c) }));
