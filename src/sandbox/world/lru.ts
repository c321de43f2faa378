/** Tiny LRU on Map insertion order. */
export class Lru<K, V> {
  private m = new Map<K, V>();
  constructor(private readonly cap: number) {}
  get(k: K): V | undefined {
    const v = this.m.get(k);
    if (v !== undefined) {
      this.m.delete(k);
      this.m.set(k, v);
    }
    return v;
  }
  set(k: K, v: V): void {
    if (this.m.has(k)) this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.cap) {
      const first = this.m.keys().next();
      if (!first.done) this.m.delete(first.value);
    }
  }
  get size(): number {
    return this.m.size;
  }
}
