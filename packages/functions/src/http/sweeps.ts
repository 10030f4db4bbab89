import { sweepsGroup } from "@tp/api/groups/sweeps";
import { backtestControl } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(sweepsGroup, (c) => ({ trading: { backtests: backtestControl(c) } }));
