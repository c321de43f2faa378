/** Shared types of the benchmark harness (bench/run.ts). */

export interface BenchContext {
  /** `--quick`: small sizes for a smoke run */
  quick: boolean;
  /** progress lines to stderr (never part of the results) */
  log: (msg: string) => void;
}

/** One measured number. */
export interface Result {
  /** what was measured, e.g. "filter+sort+page p95" */
  metric: string;
  /** the number, or null when it could not be measured (printed as n/a) */
  value: number | null;
  unit: string;
  /** the target, as text, e.g. "< 50 ms" or ">= 0.7x" */
  target?: string;
  /** whether the target was met; undefined when there is no target or no value */
  ok?: boolean;
  /** anything the reader needs to interpret the number */
  note?: string;
  /** the machine's 1-minute load average when the figure was measured (run.ts fills it in when absent) */
  load?: number;
}

export interface Bench {
  name: string;
  run(ctx: BenchContext): Promise<Result[]>;
}

/** A result row as written to latest.json. */
export interface ResultRow extends Result {
  bench: string;
}

/** The machine's 1-minute load average now (the figure to print beside a measurement). */
export async function loadNow(): Promise<number> {
  const { loadavg } = await import('node:os');
  return Math.round(loadavg()[0] * 10) / 10;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

export function below(value: number | null, limit: number): boolean | undefined {
  return value === null || !Number.isFinite(value) ? undefined : value < limit;
}

export function atLeast(value: number | null, limit: number): boolean | undefined {
  return value === null || !Number.isFinite(value) ? undefined : value >= limit;
}
