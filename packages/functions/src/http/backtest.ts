import { backtestGroup } from "@tp/api/groups/backtest";
import { httpHandler } from "./handler";
export const handler = httpHandler(backtestGroup);
