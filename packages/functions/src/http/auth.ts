import { authGroup } from "@tp/api/groups/auth";
import { httpHandler } from "./handler";
export const handler = httpHandler(authGroup);
