import { systemGroup } from "@tp/api/groups/system";
import { cache, pingDatabase } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(systemGroup, (c) => ({ cache: cache(c), now: c.now, pingDatabase: pingDatabase(c) }));
