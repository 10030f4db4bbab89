import { webhooksGroup } from "@tp/api/groups/webhooks";
import { webhooks } from "@tp/adapters/compose/webhooks";
import { httpHandler } from "./handler";
export const handler = httpHandler(webhooksGroup, (c) => ({ webhooks: webhooks(c) }));
