import { existsSync, readFileSync } from "node:fs";

/**
 * CPU seconds (user and system) a process has used so far, from /proc (Linux; undefined elsewhere):
 * work done, which a loaded machine does not inflate as it does wall time.
 */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return undefined;
  const fields = readFileSync(file, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}
