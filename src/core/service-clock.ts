/**
 * The service's clock (issue 27 #3): every time Loupe records or compares — when an answer was
 * fetched and so whether the exact call is still inside its cache window, when a run started and
 * finished, the ledger's times, forecasts, schedules — is on the clock of the service it talks to,
 * so "+1 day" on the sandbox moves all of them together (docs/watchlists.md "One clock").
 *
 * The model is this computer's clock plus an offset (rate 1: a duration measured on it is a real
 * duration, so pacing windows, leases and timeouts keep their length). The offset is learned:
 *   - from the `Date` header of every answer (RFC 9110: the origin's clock, second resolution):
 *     the service wrote it while the request was in flight, so its time then lay in
 *     [Date, Date + 1 s) (plus `Age` when a cache answered). When that interval and the model's
 *     time for the flight ([sent, received] + offset) do not overlap, the model is wrong; the
 *     offset moves once TWO such answers in a row allow a common offset (to the middle of what
 *     both allow: within half a second plus the shorter flight), so one odd header (a proxy's, a
 *     stale cache's) never moves it;
 *   - from the service's own reading where Loupe has one: the built-in sandbox's clock
 *     (`set`, read by the Sandbox panel's methods and before every watchlist run).
 * A service whose clock agrees with this computer's (within the flight time and a second) leaves
 * the offset at 0.
 */
import type { HttpPort } from './api';
import type { Clock } from './ports';

export interface ServiceClock extends Clock {
  /** ms the service's clock is ahead of this computer's (negative: behind) */
  offset(): number;
  /** this computer's time on the base clock (what `observeDate` takes its flight times on) */
  local(): number;
  /**
   * One answer's `Date` header (and `Age`, when present), for a request sent at `sentAt` and
   * answered at `receivedAt` (base clock). Returns true when the offset moved.
   */
  observeDate(date: string | undefined, sentAt: number, receivedAt: number, age?: string): boolean;
  /** The service's time read directly (`serviceNow`, taken at `at` on the base clock). */
  set(serviceNow: number, at: number): void;
}

/** A `Date` header names a whole second: the service's time lay somewhere in it. */
const SECOND = 1_000;

export function serviceClock(base: Clock): ServiceClock {
  let offset = 0;
  /** the offsets an answer that disagreed with the model allowed, waiting for a second one to agree */
  let pending: { lo: number; hi: number } | null = null;
  return {
    now: () => base.now() + offset,
    sleep: (ms, signal) => base.sleep(ms, signal),
    offset: () => offset,
    local: () => base.now(),
    observeDate(date, sentAt, receivedAt, age) {
      if (!date) return false;
      const d = Date.parse(date);
      if (!Number.isFinite(d)) return false;
      const a = age !== undefined && /^\d+$/.test(age.trim()) ? Number(age.trim()) * SECOND : 0;
      // the offsets this answer allows: the service wrote [d, d + 1 s) somewhere in the flight
      const lo = d + a - Math.max(sentAt, receivedAt);
      const hi = d + a + SECOND - Math.min(sentAt, receivedAt);
      if (offset >= lo && offset <= hi) {
        pending = null; // the model agrees
        return false;
      }
      // the model is wrong by this answer: move once a second answer allows the same offsets
      if (pending && pending.lo <= hi && lo <= pending.hi) {
        offset = Math.round((Math.max(lo, pending.lo) + Math.min(hi, pending.hi)) / 2);
        pending = null;
        return true;
      }
      pending = { lo, hi };
      return false;
    },
    set(serviceNow, at) {
      if (!Number.isFinite(serviceNow) || !Number.isFinite(at)) return;
      offset = Math.round(serviceNow - at);
      pending = null;
    },
  };
}

/** An HTTP transport that shows the service clock every answer's `Date` (the request core's `http` option). */
export function datedHttp(port: HttpPort, clock: ServiceClock): HttpPort {
  return {
    async get(url, headers, signal, timeoutMs) {
      const sentAt = clock.local();
      const out = await port.get(url, headers, signal, timeoutMs);
      if (out.status !== null) clock.observeDate(out.headers.date, sentAt, clock.local(), out.headers.age);
      return out;
    },
    close: () => port.close(),
  };
}
