import { describe, expect, it } from "vitest";
import type { WorkerLease } from "@tp/core/trading/worker/status";
import { planLeases, shareOf } from "./leases";

const lease = (session_id: string, owner: string): WorkerLease => ({ session_id, owner, since: 0 });
const sessions = (count: number) => Array.from({ length: count }, (_, i) => `s${i}`);

describe("the worker tasks' leases", () => {
  it("gives each task at most the live sessions divided by the live tasks, rounded up", () => {
    expect(shareOf(10, 1)).toBe(10);
    expect(shareOf(10, 3)).toBe(4);
    expect(shareOf(0, 2)).toBe(0);
    expect(shareOf(5, 0)).toBe(5);
  });

  it("lets a lone task take every session without a lease", () => {
    const plan = planLeases("a", sessions(3), [], new Set(["a"]));
    expect(plan.take.map((t) => t.session_id).sort()).toEqual(["s0", "s1", "s2"]);
    expect(plan.take.every((t) => t.from === undefined)).toBe(true);
    expect(plan).toMatchObject({ keep: [], release: [], forget: [] });
  });

  it("makes a task holding every session give up what is above its share when a second one starts, which the second takes", () => {
    const leases = sessions(5).map((id) => lease(id, "a"));
    const tasks = new Set(["a", "b"]);
    const first = planLeases("a", sessions(5), leases, tasks);
    expect(first.keep).toEqual(["s0", "s1", "s2"]);
    expect(first.release).toEqual(["s3", "s4"]);
    expect(first.take).toEqual([]);
    // The second sees them given up (owner "") and takes them from nobody.
    const after = leases.map((l) => (first.release.includes(l.session_id) ? lease(l.session_id, "") : l));
    const second = planLeases("b", sessions(5), after, tasks);
    expect(second.take).toEqual(
      expect.arrayContaining([
        { session_id: "s3", from: "" },
        { session_id: "s4", from: "" },
      ]),
    );
    expect(second.take).toHaveLength(2);
  });

  it("takes the sessions of a task whose heartbeat ran out, naming it as the owner it takes them from", () => {
    const leases = [lease("s0", "a"), lease("s1", "dead"), lease("s2", "dead")];
    const plan = planLeases("a", sessions(3), leases, new Set(["a"]));
    expect(plan.keep).toEqual(["s0"]);
    expect(plan.take.sort((x, y) => x.session_id.localeCompare(y.session_id))).toEqual([
      { session_id: "s1", from: "dead" },
      { session_id: "s2", from: "dead" },
    ]);
  });

  it("never takes a session a live task holds, even above its share", () => {
    const leases = sessions(4).map((id) => lease(id, "a"));
    const plan = planLeases("b", sessions(4), leases, new Set(["a", "b"]));
    expect(plan.take).toEqual([]);
    expect(plan.keep).toEqual([]);
  });

  it("forgets the leases of sessions no longer live that it or a dead task held, not a live task's", () => {
    const leases = [lease("gone-mine", "a"), lease("gone-dead", "dead"), lease("gone-other", "b"), lease("s0", "a")];
    const plan = planLeases("a", ["s0"], leases, new Set(["a", "b"]));
    expect(plan.forget.sort()).toEqual(["gone-dead", "gone-mine"]);
    expect(plan.keep).toEqual(["s0"]);
  });
});
