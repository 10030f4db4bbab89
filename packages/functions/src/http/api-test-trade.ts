import { httpHandler } from "./handler";
export const handler = httpHandler("api-test-trade");
