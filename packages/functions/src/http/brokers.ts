import { brokersGroup } from "@tp/api/groups/brokers";
import { httpHandler } from "./handler";
export const handler = httpHandler(brokersGroup);
