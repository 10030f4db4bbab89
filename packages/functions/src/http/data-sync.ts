import { httpHandler } from "./handler";
export const handler = httpHandler("data-sync");
