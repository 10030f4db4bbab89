import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** A random key kept in a file under the data directory (the local stand-in for Secrets Manager). */
export function keyFile(path: string, bytes = 32): Uint8Array {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, randomBytes(bytes).toString("hex"), { mode: 0o600 });
  }
  return Buffer.from(readFileSync(path, "utf8").trim(), "hex");
}
