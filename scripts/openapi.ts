/**
 * Writes the embedded app's OpenAPI document to packages/api/openapi.json and its AsyncAPI
 * document (the sockets) to packages/api/asyncapi.json, which the docs function serves (it holds
 * no group itself). Run after changing a route or a socket message: `npm run openapi`.
 * `test/api/openapi.test.ts` and `test/api/asyncapi.test.ts` fail while a file differs from the app's document.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configFromEnv } from "@tp/adapters/config";
import { createServices } from "@tp/adapters/services";
import { createApp, openApiDocumentOf } from "@tp/api/app";

export const OPENAPI_FILE = fileURLToPath(new URL("../packages/api/openapi.json", import.meta.url));
export const ASYNCAPI_FILE = fileURLToPath(new URL("../packages/api/asyncapi.json", import.meta.url));

/** The document as the file holds it. */
export const openApiText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

const embeddedApp = () => {
  const key = new TextEncoder().encode("openapi-document-only-openapi-document");
  return createApp(createServices(configFromEnv({}, key, key.slice(0, 32))));
};

/** The embedded app's document. Composing the services does no I/O; only the routes are read. */
export async function embeddedDocument(): Promise<unknown> {
  return openApiDocumentOf(embeddedApp());
}

/** The embedded app's AsyncAPI document. */
export async function embeddedAsyncApiDocument(): Promise<unknown> {
  return (await embeddedApp().request("/asyncapi.json")).json();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, openApiText(await embeddedDocument()));
  writeFileSync(ASYNCAPI_FILE, openApiText(await embeddedAsyncApiDocument()));
  console.log(`Wrote ${OPENAPI_FILE} and ${ASYNCAPI_FILE}`);
}
