import { authGroup } from "@tp/api/groups/auth";
import { auth } from "@tp/adapters/compose/users";
import { httpHandler } from "./handler";
export const handler = httpHandler(authGroup, (c) => ({ auth: auth(c) }));
