import { killSwitchGroup } from "@tp/api/groups/kill-switch";
import { killSwitch, outsideOrders } from "@tp/adapters/compose/kill-switch";
import { tradingSessions } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(killSwitchGroup, (c) => ({
  killSwitch: killSwitch(c),
  outsideOrders: outsideOrders(c),
  trading: { sessions: tradingSessions(c) },
}));
