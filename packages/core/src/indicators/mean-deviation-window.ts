/**
 * The last `period` values of a series with their mean and mean absolute deviation, for CCI.
 *
 * The mean deviation Σ|x − m| / n is taken around the window's *current* mean, so no running
 * sum can carry it from bar to bar. The window is therefore also kept as a treap ordered by
 * value whose nodes carry subtree counts and sums: the sum and count of the values below the
 * mean come from one root-to-leaf walk, and
 *   Σ|x − m| = (m·below − sumBelow) + (sumAbove − m·above).
 * Every bar costs O(log period) expected (one insert, one delete, one walk, all iterative over
 * parent links) instead of the O(period) rescan TA-Lib does. Subtree sums are recomputed from
 * their children on every change, so they do not drift the way a running sum does. Priorities
 * come from a hash of the insertion sequence, so the tree (and every rounding) is a pure
 * function of the input series.
 */
export class MeanDeviationWindow {
  private readonly nil: number;
  private readonly keys: Float64Array;
  private readonly sums: Float64Array;
  private readonly sizes: Int32Array;
  private readonly priorities: Int32Array;
  private readonly lefts: Int32Array;
  private readonly rights: Int32Array;
  private readonly parents: Int32Array;
  private root: number;
  private slot = 0;
  private count = 0;
  private inserted = 0;

  constructor(readonly period: number) {
    // Node ids are ring-buffer slots 0..period-1; id `period` is the empty sentinel (size 0, sum 0).
    const nodes = period + 1;
    this.nil = period;
    this.keys = new Float64Array(nodes);
    this.sums = new Float64Array(nodes);
    this.sizes = new Int32Array(nodes);
    this.priorities = new Int32Array(nodes);
    this.lefts = new Int32Array(nodes).fill(period);
    this.rights = new Int32Array(nodes).fill(period);
    this.parents = new Int32Array(nodes).fill(period);
    this.root = period;
  }

  /** Number of values held (at most `period`). */
  get size(): number {
    return this.count;
  }

  /** Sum of the values held, recomputed from the tree (no running-sum drift). */
  get sum(): number {
    return this.sums[this.root];
  }

  /** Adds `value`, dropping the oldest value once the window is full. */
  push(value: number): void {
    const node = this.slot;
    if (this.count === this.period) this.remove(node);
    else this.count++;
    this.slot = node + 1 === this.period ? 0 : node + 1;
    this.insert(node, value);
  }

  /** Σ|x − mean| over the values held. May be a rounding error away from 0 (either sign) for a flat window. */
  deviationSum(mean: number): number {
    const keys = this.keys;
    const sums = this.sums;
    const sizes = this.sizes;
    const lefts = this.lefts;
    const rights = this.rights;
    const nil = this.nil;
    let below = 0;
    let sumBelow = 0;
    let node = this.root;
    while (node !== nil) {
      const left = lefts[node];
      if (keys[node] < mean) {
        below += sizes[left] + 1;
        sumBelow += sums[left] + keys[node];
        node = rights[node];
      } else {
        node = left;
      }
    }
    const above = this.count - below;
    const sumAbove = sums[this.root] - sumBelow;
    return mean * below - sumBelow + (sumAbove - mean * above);
  }

  /** Forgets every value. */
  reset(): void {
    this.root = this.nil;
    this.slot = 0;
    this.count = 0;
    this.inserted = 0;
  }

  /** Recomputes a node's subtree size and sum from its children. */
  private pull(node: number): void {
    const left = this.lefts[node];
    const right = this.rights[node];
    this.sizes[node] = this.sizes[left] + 1 + this.sizes[right];
    this.sums[node] = this.sums[left] + this.keys[node] + this.sums[right];
  }

  /** Rotates `node` above its parent, keeping the search order. */
  private rotateUp(node: number): void {
    const nil = this.nil;
    const lefts = this.lefts;
    const rights = this.rights;
    const parents = this.parents;
    const parent = parents[node];
    const grandparent = parents[parent];
    if (lefts[parent] === node) {
      const moved = rights[node];
      lefts[parent] = moved;
      if (moved !== nil) parents[moved] = parent;
      rights[node] = parent;
    } else {
      const moved = lefts[node];
      rights[parent] = moved;
      if (moved !== nil) parents[moved] = parent;
      lefts[node] = parent;
    }
    parents[parent] = node;
    parents[node] = grandparent;
    if (grandparent === nil) this.root = node;
    else if (lefts[grandparent] === parent) lefts[grandparent] = node;
    else rights[grandparent] = node;
    this.pull(parent);
    this.pull(node);
  }

  private insert(node: number, value: number): void {
    const nil = this.nil;
    const keys = this.keys;
    const lefts = this.lefts;
    const rights = this.rights;
    const parents = this.parents;
    keys[node] = value;
    this.sums[node] = value;
    this.sizes[node] = 1;
    lefts[node] = nil;
    rights[node] = nil;
    this.priorities[node] = priority(this.inserted++);
    let parent = this.root;
    if (parent === nil) {
      parents[node] = nil;
      this.root = node;
      return;
    }
    for (;;) {
      if (value < keys[parent]) {
        if (lefts[parent] === nil) {
          lefts[parent] = node;
          break;
        }
        parent = lefts[parent];
      } else {
        if (rights[parent] === nil) {
          rights[parent] = node;
          break;
        }
        parent = rights[parent];
      }
    }
    parents[node] = parent;
    const priorities = this.priorities;
    while (parents[node] !== nil && priorities[node] > priorities[parents[node]]) this.rotateUp(node);
    for (let ancestor = parents[node]; ancestor !== nil; ancestor = parents[ancestor]) this.pull(ancestor);
  }

  private remove(node: number): void {
    const nil = this.nil;
    const lefts = this.lefts;
    const rights = this.rights;
    const parents = this.parents;
    const priorities = this.priorities;
    // Sink the node below its higher-priority child until it has at most one child.
    while (lefts[node] !== nil && rights[node] !== nil) {
      this.rotateUp(priorities[lefts[node]] > priorities[rights[node]] ? lefts[node] : rights[node]);
    }
    const child = lefts[node] !== nil ? lefts[node] : rights[node];
    const parent = parents[node];
    if (child !== nil) parents[child] = parent;
    if (parent === nil) this.root = child;
    else if (lefts[parent] === node) lefts[parent] = child;
    else rights[parent] = child;
    for (let ancestor = parent; ancestor !== nil; ancestor = parents[ancestor]) this.pull(ancestor);
  }
}

/** Murmur3 finaliser: well-mixed 31-bit priorities from consecutive sequence numbers. */
const priority = (sequenceNumber: number): number => {
  let h = sequenceNumber | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 1;
};
