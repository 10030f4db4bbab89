// Preloaded with `node --import` (NODE_OPTIONS) by e2e tests that need npm start to run on another day
// than today's, as a reader would on that day: TP_TEST_WALL_CLOCK (an ISO instant) is what the wall
// clock reads when the process starts, and it runs on at its usual pace from there. Only Date moves
// (Date.now(), new Date() and Date()); timers, performance.now() and other processes keep theirs.
const target = Date.parse(process.env.TP_TEST_WALL_CLOCK ?? "");
if (Number.isFinite(target)) {
  const RealDate = Date;
  const offset = target - RealDate.now();
  const now = () => RealDate.now() + offset;
  globalThis.Date = new Proxy(RealDate, {
    construct: (real, args, newTarget) => Reflect.construct(real, args.length === 0 ? [now()] : args, newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (real, key, receiver) => (key === "now" ? now : Reflect.get(real, key, receiver)),
  });
}
