import { killSwitchGroup } from "@tp/api/groups/kill-switch";
import { killSwitch, outsideOrders, tradingSessions } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(killSwitchGroup, (c) => ({
  killSwitch: killSwitch(c),
  outsideOrders: outsideOrders(c),
  trading: { sessions: tradingSessions(c) },
}));
