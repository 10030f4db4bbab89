import { mtfGroup } from "@tp/api/groups/mtf";
import { realtime, tradingDrivers } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(mtfGroup, (c) => ({ realtime: realtime(c), trading: { drivers: tradingDrivers(c) } }));
