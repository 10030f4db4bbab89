import { usersGroup } from "@tp/api/groups/users";
import { httpHandler } from "./handler";
export const handler = httpHandler(usersGroup);
