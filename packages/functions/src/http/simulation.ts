import { simulationGroup } from "@tp/api/groups/simulation";
import { killSwitch, paperBroker } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(simulationGroup, (c) => ({ paperBroker: paperBroker(c), killSwitch: killSwitch(c) }));
