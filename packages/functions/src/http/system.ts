import { systemGroup } from "@tp/api/groups/system";
import { httpHandler } from "./handler";
export const handler = httpHandler(systemGroup);
