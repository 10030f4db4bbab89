import { flowsGroup } from "@tp/api/groups/flows";
import { flows } from "@tp/adapters/compose/users";
import { httpHandler } from "./handler";
export const handler = httpHandler(flowsGroup, (c) => ({ flows: flows(c) }));
