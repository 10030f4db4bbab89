import { webhooksGroup } from "@tp/api/groups/webhooks";
import { webhooks } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(webhooksGroup, (c) => ({ webhooks: webhooks(c) }));
