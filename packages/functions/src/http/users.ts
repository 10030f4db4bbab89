import { usersGroup } from "@tp/api/groups/users";
import { brokerAccounts } from "@tp/adapters/compose/brokers";
import { users } from "@tp/adapters/compose/users";
import { httpHandler } from "./handler";
export const handler = httpHandler(usersGroup, (c) => ({ brokerAccounts: brokerAccounts(c), users: users(c) }));
