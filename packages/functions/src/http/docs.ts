import { createDocsApp } from "@tp/api/app";
import { httpHandler } from "./handler";

/** The docs function: /openapi.json (the written document, packages/api/openapi.json) and the docs page. */
export const handler = httpHandler(createDocsApp, () => ({}), { app: true });
