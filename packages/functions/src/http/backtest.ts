import { backtestGroup } from "@tp/api/groups/backtest";
import { backtestControl } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(backtestGroup, (c) => ({ trading: { backtests: backtestControl(c) } }));
