import { createApp } from "@tp/api/app";
import { allServices } from "@tp/adapters/services";
import { httpHandler } from "./handler";

/** The docs function: /openapi.json, /docs and every group (it is the HTTP API's `$default`). */
export const handler = httpHandler(createApp, allServices, { app: true });
