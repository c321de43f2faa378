/** Display formatting: abbreviated numbers, relative dates, credit ranges. Pure functions (tested). */

const exact = new Intl.NumberFormat('en-US');

export function fmtExact(n: number): string {
  return exact.format(n);
}

/** 950 → "950", 12 345 → "12.3k", 1 200 000 → "1.2M". Negative numbers keep their sign. */
export function abbreviate(n: number): string {
  const a = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  const units: Array<[number, string]> = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [size, suffix] of units) {
    if (a >= size) {
      const v = a / size;
      const s = v >= 100 ? Math.round(v).toString() : v.toFixed(1).replace(/\.0$/, '');
      // 999.95k rounds to "1000k": promote to the next unit
      if (s === '1000' && suffix !== 'T') return abbreviate(n < 0 ? -size * 1000 : size * 1000);
      return sign + s + suffix;
    }
  }
  return sign + (Number.isInteger(a) ? String(a) : a.toFixed(2).replace(/\.?0+$/, ''));
}

/** "100–1,700 credits", "20 credits", "free" */
export function creditRange(min: number, max: number): string {
  if (max === 0) return 'free';
  if (min === max) return `${fmtExact(max)} credit${max === 1 ? '' : 's'}`;
  return `${fmtExact(min)}–${fmtExact(max)} credits`;
}

export function toMs(v: string | number | null | undefined): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

/** "2024-05-01 12:03 UTC" */
export function utc(ms: number): string {
  const d = new Date(ms);
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d\.\d{3}Z$/, ' UTC');
}

/**
 * The service's clock (issue 14 #9): on the sandbox, whose clock can be advanced and may run
 * faster than real time, "3 h ago" is counted from the service's now, not the computer's.
 */
let serviceClock: { now: number; at: number; timeScale: number } | null = null;
export function setServiceClock(c: { now: number; at: number; timeScale: number } | null): void {
  // `at` is the host's Date.now() when it read the service clock (the same computer as this page)
  serviceClock = c ? { ...c } : null;
}
export function serviceNow(real: number = Date.now()): number {
  return serviceClock ? serviceClock.now + (real - serviceClock.at) * serviceClock.timeScale : real;
}

/** "just now", "5 min ago", "3 h ago", "12 d ago", "4 mo ago", "2 y ago"; future: "in 3 h" — on the service's clock */
export function relative(ms: number, now: number = serviceNow()): string {
  const diff = now - ms;
  const future = diff < 0;
  const s = Math.abs(diff) / 1000;
  let out: string;
  if (s < 45) return future ? 'in a moment' : 'just now';
  if (s < 3600) out = `${Math.round(s / 60)} min`;
  else if (s < 86400) out = `${Math.round(s / 3600)} h`;
  else if (s < 86400 * 45) out = `${Math.round(s / 86400)} d`;
  else if (s < 86400 * 365) out = `${Math.round(s / (86400 * 30))} mo`;
  else out = `${(s / (86400 * 365)).toFixed(1).replace(/\.0$/, '')} y`;
  return future ? `in ${out}` : `${out} ago`;
}

/** "42 s", "3 min", "1 h 5 min" */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function truncate(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** Only http(s) links are ever rendered as anchors (hostile data may carry javascript: URLs). */
export function safeHttpUrl(u: unknown): string | null {
  if (typeof u !== 'string') return null;
  try {
    const p = new URL(u);
    return p.protocol === 'http:' || p.protocol === 'https:' ? p.href : null;
  } catch {
    return null;
  }
}
