/**
 * Usage's sources in words (issue 27 #5): `watch:764ae610-…` reads as the watchlist's name, a
 * view's source as the view, and a call recorded without a source says so rather than drawing a
 * bar without a label.
 */
const VIEWS: Readonly<Record<string, string>> = {
  search: 'Search',
  profile: 'Profiles',
  comments: 'Comments',
  explorer: 'Explorer',
  collect: 'Collect',
  cli: 'command line',
  import: 'imports',
  quote: 'price quotes',
  probe: 'balance checks',
  walk: 'walks',
};

/** One `calls.source` in words; `listName` gives a watchlist's name by id (undefined: gone). */
export function sourceWords(source: string | null, listName: (id: string) => string | undefined): string {
  if (source === null || source.trim() === '') return 'no source recorded';
  if (source.startsWith('watch:')) {
    const name = listName(source.slice('watch:'.length));
    return name !== undefined ? `watchlist “${name}”` : 'a deleted watchlist';
  }
  const i = source.indexOf(':');
  const kind = i < 0 ? source : source.slice(0, i);
  const view = Object.prototype.hasOwnProperty.call(VIEWS, kind) ? VIEWS[kind] : undefined;
  if (!view) return source;
  return i < 0 ? view : `${view}: ${source.slice(i + 1)}`;
}

/** Per-source points with their buckets in words; two sources that read the same are one bar. */
export function perSourceInWords<P extends { bucket: string | null; value: number; calls?: number }>(
  points: P[],
  listName: (id: string) => string | undefined,
): P[] {
  const out = new Map<string, P>();
  for (const p of points) {
    const bucket = sourceWords(p.bucket, listName);
    const prev = out.get(bucket);
    out.set(
      bucket,
      prev
        ? { ...prev, value: prev.value + p.value, ...(prev.calls !== undefined ? { calls: (prev.calls ?? 0) + (p.calls ?? 0) } : {}) }
        : { ...p, bucket },
    );
  }
  return [...out.values()].sort((a, b) => b.value - a.value || String(a.bucket).localeCompare(String(b.bucket)));
}
