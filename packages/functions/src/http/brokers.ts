import { brokersGroup } from "@tp/api/groups/brokers";
import { brokers } from "@tp/adapters/compose/brokers";
import { httpHandler } from "./handler";
export const handler = httpHandler(brokersGroup, (c) => ({ brokers: brokers(c) }));
