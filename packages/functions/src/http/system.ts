import { systemGroup } from "@tp/api/groups/system";
import { cache, pingDatabase } from "@tp/adapters/compose/platform";
import { httpHandler } from "./handler";
export const handler = httpHandler(systemGroup, (c) => ({ cache: cache(c), now: c.now, pingDatabase: pingDatabase(c) }));
