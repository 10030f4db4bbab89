import { execSync } from "node:child_process";

/** The browser the browser tests drive: Debian's chromium (.ci/run installs it), or another found on PATH; undefined when none is. */
export const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"]
  .map((name) => {
    try {
      return execSync(`command -v ${name}`, { encoding: "utf8" }).trim();
    } catch {
      return "";
    }
  })
  .find(Boolean);
