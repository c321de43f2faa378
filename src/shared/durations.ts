/**
 * Durations in words (issue 27 #20): "every minute", not "every 0.016666666666666666 h"; "6 hours",
 * "1 day 12 hours", "2 weeks". One definition for the renderer, the CLI and the core's sentences.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * A span in words, rounded to what reads: seconds under a minute, minutes under an hour, hours and
 * minutes under a day, days and hours under two weeks (whole weeks beyond, when exact).
 */
export function spanWords(ms: number): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  const t = Math.abs(ms);
  if (t < MINUTE) return unit(Math.max(0, Math.round(t / SECOND)), 'second');
  if (t < HOUR - MINUTE / 2) return unit(Math.round(t / MINUTE), 'minute');
  if (t < DAY - MINUTE / 2) {
    const m = Math.round(t / MINUTE);
    const h = Math.floor(m / 60);
    const rest = m % 60;
    return rest ? `${unit(h, 'hour')} ${unit(rest, 'minute')}` : unit(h, 'hour');
  }
  const hTotal = Math.round(t / HOUR);
  if (hTotal % (7 * 24) === 0 && hTotal >= 14 * 24) return unit(hTotal / (7 * 24), 'week');
  const d = Math.floor(hTotal / 24);
  const h = hTotal % 24;
  return h ? `${unit(d, 'day')} ${unit(h, 'hour')}` : unit(d, 'day');
}

/** "every minute", "every 6 hours", "every day", "every 1 day 12 hours" */
export function everyWords(hours: number): string {
  const s = spanWords(hours * HOUR);
  return `every ${s.replace(/^1 (second|minute|hour|day|week)$/, '$1')}`;
}

/** A watchlist's schedule in words: "every 6 hours", "on the cron schedule 0 8 * * *", "manual only". */
export function scheduleWords(s: { everyHours?: number; cron?: string } | null | undefined): string {
  if (s?.everyHours !== undefined && s.everyHours > 0) return everyWords(s.everyHours);
  if (s?.cron) return `on the cron schedule ${s.cron}`;
  return 'manual only';
}
