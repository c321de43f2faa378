/**
 * Fault injection. `--chaos 0.2` = total fault rate split over the kinds below;
 * `--chaos 429=0.05,500=0.05,503=0.05,drop=0.05,slow=0.02[,slow_ms=1500]` = explicit rates.
 * Decisions come from a seeded PRNG so a run with the same seed and request order is reproducible.
 */
import { mulberry32 } from '../../shared/random';
import type { ChaosConfig } from './types';

export type ChaosFault = '429' | '500' | '503' | 'drop' | 'slow';

/** Split of a bare total rate. */
const SPLIT: Record<ChaosFault, number> = { '429': 0.25, '500': 0.2, '503': 0.25, drop: 0.2, slow: 0.1 };

export function normalizeChaos(c: ChaosConfig | number | undefined): Required<ChaosConfig> {
  if (c === undefined) return { rate429: 0, rate500: 0, rate503: 0, rateDrop: 0, rateSlow: 0, slowMs: 1000 };
  if (typeof c === 'number') {
    if (!(c >= 0 && c <= 1)) throw new Error('chaos rate must be within 0..1');
    return {
      rate429: c * SPLIT['429'],
      rate500: c * SPLIT['500'],
      rate503: c * SPLIT['503'],
      rateDrop: c * SPLIT.drop,
      rateSlow: c * SPLIT.slow,
      slowMs: 1000,
    };
  }
  const out = {
    rate429: c.rate429 ?? 0,
    rate500: c.rate500 ?? 0,
    rate503: c.rate503 ?? 0,
    rateDrop: c.rateDrop ?? 0,
    rateSlow: c.rateSlow ?? 0,
    slowMs: c.slowMs ?? 1000,
  };
  const total = out.rate429 + out.rate500 + out.rate503 + out.rateDrop + out.rateSlow;
  for (const v of [out.rate429, out.rate500, out.rate503, out.rateDrop, out.rateSlow])
    if (!(v >= 0 && v <= 1)) throw new Error('chaos rates must be within 0..1');
  if (total > 1 + 1e-9) throw new Error('chaos rates add up to more than 1');
  return out;
}

/** Parse the CLI form: a number, or `429=0.05,500=0.05,503=0.05,drop=0.05,slow=0.02,slow_ms=1500`. */
export function parseChaos(spec: string): ChaosConfig | number {
  const s = spec.trim();
  if (/^[0-9.]+$/.test(s)) return Number(s);
  const c: ChaosConfig = {};
  for (const part of s.split(',')) {
    const [k, v] = part.split('=').map((x) => x.trim());
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n)) throw new Error(`bad chaos entry '${part}'`);
    switch (k) {
      case '429':
        c.rate429 = n;
        break;
      case '500':
        c.rate500 = n;
        break;
      case '503':
        c.rate503 = n;
        break;
      case 'drop':
        c.rateDrop = n;
        break;
      case 'slow':
        c.rateSlow = n;
        break;
      case 'slow_ms':
        c.slowMs = n;
        break;
      default:
        throw new Error(`unknown chaos kind '${k}' (use 429, 500, 503, drop, slow, slow_ms)`);
    }
  }
  return c;
}

export class Chaos {
  private cfg: Required<ChaosConfig>;
  private readonly rand: () => number;
  constructor(c: ChaosConfig | number | undefined, seed: number) {
    this.cfg = normalizeChaos(c);
    this.rand = mulberry32(seed ^ 0x5eed);
  }
  set(c: ChaosConfig | number): void {
    this.cfg = normalizeChaos(c);
  }
  get config(): Required<ChaosConfig> {
    return { ...this.cfg };
  }
  /** Draw the fault (or none) for one data request. */
  draw(): ChaosFault | null {
    const c = this.cfg;
    const total = c.rate429 + c.rate500 + c.rate503 + c.rateDrop + c.rateSlow;
    if (total <= 0) return null;
    let r = this.rand();
    for (const [f, rate] of [
      ['429', c.rate429],
      ['500', c.rate500],
      ['503', c.rate503],
      ['drop', c.rateDrop],
      ['slow', c.rateSlow],
    ] as const) {
      if (r < rate) return f;
      r -= rate;
    }
    return null;
  }
  /** A secondary uniform draw (e.g. the 503 flavour or a Retry-After length). */
  next(): number {
    return this.rand();
  }
}
