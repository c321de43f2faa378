/**
 * Map lookups that say what they know (issue 25, "habits"): instead of `m.get(k)!`, a lookup of a
 * key the code itself put there (`present`: missing is a bug, said in a clear error), and a list
 * or value made on first use (`listAt`, `valueAt`) instead of `m.get(k) ?? m.set(k, []).get(k)!`.
 */

/** The value under `key`, which the caller put there itself; a missing one is a bug, thrown as such. */
export function present<K, V>(m: ReadonlyMap<K, V>, key: K, what = 'entry'): V {
  const v = m.get(key);
  if (v === undefined && !m.has(key)) throw new Error(`Internal error: no ${what} for ${JSON.stringify(String(key))}.`);
  return v as V;
}

/** The value under `key`, made by `make` and stored there first when there is none. */
export function valueAt<K, V>(m: Map<K, V>, key: K, make: () => V): V {
  const v = m.get(key);
  if (v !== undefined) return v;
  const made = make();
  m.set(key, made);
  return made;
}

/** The list under `key`, an empty one stored there first when there is none. */
export function listAt<K, V>(m: Map<K, V[]>, key: K): V[] {
  return valueAt(m, key, () => []);
}

/** The first of a queue the caller filled itself, taken off; an empty one is a bug, thrown as such. */
export function shifted<T>(queue: T[], what: string): T {
  if (queue.length === 0) throw new Error(`Internal error: no ${what} queued.`);
  return queue.shift() as T;
}

/** A value the code relies on having set: thrown as a bug where it is missing. */
export function absent(what: string): never {
  throw new Error(`Internal error: no ${what}.`);
}
