/**
 * Counts of ordered pairs of node indexes (a network's edges while it is built), in typed arrays:
 * an open-addressing hash table over insertion-ordered entry arrays. A `Map` keyed by a packed
 * pair (a × 2^26 + b) boxes every key above 2^31 as a heap number, and at ~300k distinct edges
 * its entries were most of the builder's garbage (docs/analysis.md "Networks", Performance).
 *
 * Entries keep the order in which their pair was first added, as the Map did, so a network's
 * edge keys (`e0`, `e1`, …) and files stay the same bytes.
 */
export class PairCounts {
  /** entry index + 1 per slot; 0 = empty */
  private slots: Int32Array;
  private mask: number;
  /** first node of each entry, in insertion order */
  source: Uint32Array;
  /** second node of each entry */
  target: Uint32Array;
  /** times the pair was added */
  count: Uint32Array;
  /** times it was added with `flag` (the `mentions` network: replies) */
  flagged: Uint32Array;
  size = 0;

  constructor(initial = 1024) {
    let cap = 16;
    while (cap < initial * 2) cap *= 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    this.source = new Uint32Array(initial);
    this.target = new Uint32Array(initial);
    this.count = new Uint32Array(initial);
    this.flagged = new Uint32Array(initial);
  }

  private static hash(a: number, b: number): number {
    let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    return h ^ (h >>> 12);
  }

  /** Count the pair (a, b) once more (and as flagged when `flag`). */
  add(a: number, b: number, flag = false): void {
    const { slots, source, target } = this;
    let s = PairCounts.hash(a, b) & this.mask;
    for (;;) {
      const e = slots[s];
      if (e === 0) break;
      if (source[e - 1] === a && target[e - 1] === b) {
        this.count[e - 1]++;
        if (flag) this.flagged[e - 1]++;
        return;
      }
      s = (s + 1) & this.mask;
    }
    const i = this.size++;
    if (i >= this.source.length) this.growEntries();
    this.source[i] = a;
    this.target[i] = b;
    this.count[i] = 1;
    this.flagged[i] = flag ? 1 : 0;
    slots[s] = i + 1;
    if (this.size * 2 > slots.length) this.rehash();
  }

  /** How many times (a, b) was added (0 when never). */
  get(a: number, b: number): number {
    let s = PairCounts.hash(a, b) & this.mask;
    for (;;) {
      const e = this.slots[s];
      if (e === 0) return 0;
      if (this.source[e - 1] === a && this.target[e - 1] === b) return this.count[e - 1];
      s = (s + 1) & this.mask;
    }
  }

  private growEntries(): void {
    const n = this.source.length * 2;
    const grow = (x: Uint32Array): Uint32Array => {
      const y = new Uint32Array(n);
      y.set(x);
      return y;
    };
    this.source = grow(this.source);
    this.target = grow(this.target);
    this.count = grow(this.count);
    this.flagged = grow(this.flagged);
  }

  private rehash(): void {
    const cap = this.slots.length * 2;
    const slots = new Int32Array(cap);
    const mask = cap - 1;
    for (let i = 0; i < this.size; i++) {
      let s = PairCounts.hash(this.source[i], this.target[i]) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = i + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
