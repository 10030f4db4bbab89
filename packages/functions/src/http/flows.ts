import { flowsGroup } from "@tp/api/groups/flows";
import { httpHandler } from "./handler";
export const handler = httpHandler(flowsGroup);
