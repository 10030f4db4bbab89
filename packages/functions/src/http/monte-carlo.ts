import { monteCarloGroup } from "@tp/api/groups/monte-carlo";
import { backtestControl } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(monteCarloGroup, (c) => ({ trading: { backtests: backtestControl(c) } }));
