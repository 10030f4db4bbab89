import { defineConfig } from "vite";

/**
 * The console is served under /console (by `npm start` and, deployed, from its static site's root
 * rewritten to /console): every asset URL starts with /console/. `VITE_API_URL` and
 * `VITE_SOCKET_URL` (set by the Console stack at deploy time) point it at the API; unset, it calls
 * the origin it was loaded from.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: process.env.CONSOLE_BASE ?? "/console/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 600 },
});
