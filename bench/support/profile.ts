import { writeFileSync } from "node:fs";
import { Session as Inspector } from "node:inspector/promises";

/** Where to write CPU profiles of a bench's timed work (`BENCH_PROFILE`), none by default. */
const PROFILE = process.env.BENCH_PROFILE;

/** Profiles what `work` does (when `BENCH_PROFILE` is set) into `<BENCH_PROFILE>-<name>.cpuprofile`, for Chrome's DevTools. */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE) return work();
  const inspector = new Inspector();
  inspector.connect();
  await inspector.post("Profiler.enable");
  await inspector.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await inspector.post("Profiler.stop");
    writeFileSync(`${PROFILE}-${name}.cpuprofile`, JSON.stringify(profile));
    inspector.disconnect();
  }
}
