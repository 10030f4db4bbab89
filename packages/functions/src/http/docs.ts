import { httpHandler } from "./handler";
/** /openapi.json and /docs: the document covers every group, so this function holds them all. */
export const handler = httpHandler("all");
