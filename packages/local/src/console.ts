import { readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";
import type { Hono } from "hono";

/** Where `npm run build:console` writes the console (packages/console/dist); `CONSOLE_DIR` points elsewhere (tests build into a folder of their own). */
export const CONSOLE_DIST = resolve(process.env.CONSOLE_DIR || resolve(import.meta.dirname, "../../console/dist"));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
};

/**
 * The built web console at /console on the service's own port: its files under /console/assets/
 * (named by their content's hash, so cached for a year), and index.html for every other path under
 * /console that is not one of its files, so a deep link like /console/backtests/{id} opens the
 * single-page app on that page.
 * Files are read once and kept. Without a build, /console says how to make one.
 */
export function mountConsole(app: Hono<any, any, any>, dist = CONSOLE_DIST): void {
  const cache = new Map<string, Buffer>();
  const read = (file: string): Buffer | undefined => {
    let content = cache.get(file);
    if (content === undefined) {
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
      content = readFileSync(file);
      cache.set(file, content);
    }
    return content;
  };
  const serve = (path: string) => {
    const index = read(join(dist, "index.html"));
    if (!index)
      return new Response("The console is not built: run `npm run build:console` (npm start does it first).", {
        status: 503,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      });
    const relative = normalize(path.replace(/^\/console\/?/, "")).replace(/^(\.\.[/\\])+/, "");
    const file = join(dist, relative);
    const content = relative && relative !== "." && file.startsWith(`${dist}/`) ? read(file) : undefined;
    if (content) {
      const immutable = relative.startsWith("assets/");
      return new Response(new Uint8Array(content), {
        headers: {
          "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
          "Cache-Control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
        },
      });
    }
    // A missing asset is a 404; any other path is a page of the app (`/console/symbols/AAPL.US` too).
    if (relative.startsWith("assets/")) return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    return new Response(new Uint8Array(index), { headers: { "Content-Type": TYPES[".html"]!, "Cache-Control": "no-cache" } });
  };
  app.get("/console", (c) => serve(c.req.path));
  app.get("/console/*", (c) => serve(c.req.path));
}
