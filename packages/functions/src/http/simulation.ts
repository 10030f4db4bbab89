import { simulationGroup } from "@tp/api/groups/simulation";
import { killSwitch } from "@tp/adapters/compose/kill-switch";
import { paperBroker } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(simulationGroup, (c) => ({ paperBroker: paperBroker(c), killSwitch: killSwitch(c) }));
