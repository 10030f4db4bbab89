import { auditGroup } from "@tp/api/groups/audit";
import { httpHandler } from "./handler";
export const handler = httpHandler(auditGroup, () => ({}));
