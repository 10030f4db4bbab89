import { usersGroup } from "@tp/api/groups/users";
import { brokerAccounts, users } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(usersGroup, (c) => ({ brokerAccounts: brokerAccounts(c), users: users(c) }));
