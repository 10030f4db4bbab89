import { createApp } from "@tp/api/app";
import { httpHandler } from "./handler";

/** The docs function: /openapi.json, /docs and every group (it is the HTTP API's `$default`). */
export const handler = httpHandler(createApp, { app: true });
