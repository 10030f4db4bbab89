import { killSwitchGroup } from "@tp/api/groups/kill-switch";
import { killSwitch, tradingSessions } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(killSwitchGroup, (c) => ({ killSwitch: killSwitch(c), trading: { sessions: tradingSessions(c) } }));
