import { mtfGroup } from "@tp/api/groups/mtf";
import { realtime } from "@tp/adapters/compose/platform";
import { tradingDrivers } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(mtfGroup, (c) => ({ realtime: realtime(c), trading: { drivers: tradingDrivers(c) } }));
