import { mtfGroup } from "@tp/api/groups/mtf";
import { httpHandler } from "./handler";
export const handler = httpHandler(mtfGroup);
