import { stockDataGroup } from "@tp/api/groups/stock-data";
import { candles } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockDataGroup, (c) => ({ candles: candles(c) }));
