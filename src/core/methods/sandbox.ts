/**
 * The contract's `sandbox.*` methods (the Sandbox panel, issue 14 #9). The app talks to the
 * built-in emulator like any service; these drive the emulator's own loopback admin routes
 * (docs/sandbox.md) so a newcomer can move its clock, set its balance and turn faults on from the
 * app. Never used against a real service.
 */
import type { SandboxState } from '../../shared/contract';
import { AppError } from '../bridge';
import type { SandboxRef } from '../service-link';
import type { AppParts, Slice } from './parts';

export function sandboxMethods(parts: Pick<AppParts, 'service' | 'emit' | 'clock'>): Slice<'sandbox'> {
  const { service, emit, clock } = parts;
  let sandboxFaultRate = 0;
  let sandboxStartBalance: number | null = null;

  async function currentSandbox(): Promise<SandboxRef> {
    if (!service.wanted().sandbox)
      throw new AppError('not_available', 'The Sandbox panel works only while Loupe runs on the built-in sandbox.');
    return service.sandbox();
  }
  async function sandboxAdmin(route: string, body?: unknown): Promise<Record<string, unknown>> {
    const sb = await currentSandbox();
    const r = await fetch(
      `${sb.url}/__admin/${route}`,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    const j = (await r.json()) as Record<string, unknown>;
    if (!r.ok)
      throw new AppError(
        'validation',
        `The sandbox refused ${route}: ${String((j.error as { message?: string } | undefined)?.message ?? r.status)}`,
      );
    return j;
  }
  async function sandboxState(): Promise<SandboxState> {
    const sb = await currentSandbox();
    const at = Date.now();
    const localAt = clock.local();
    const [c, st] = await Promise.all([sandboxAdmin('clock'), sandboxAdmin('stats')]);
    // the app's clock is the sandbox's (issue 27 #3): what Loupe records and compares follows it
    if (Number.isFinite(Number(c.now))) clock.set(Number(c.now), (localAt + clock.local()) / 2);
    let balance: number | null = null;
    try {
      balance = (await service.refreshCredits()).creditsRemaining;
    } catch {
      /* the balance shows as unknown */
    }
    if (sandboxStartBalance === null && balance !== null && Number(st.requests ?? 0) === 0) sandboxStartBalance = balance;
    return {
      url: sb.url,
      now: Number(c.now),
      at,
      timeScale: Number(c.time_scale ?? 1),
      balance,
      faultRate: sandboxFaultRate,
      requests: Number(st.requests ?? 0),
      creditsCharged: Number(st.credits_charged ?? 0),
    };
  }

  return {
    async 'sandbox.state'() {
      if (!service.wanted().sandbox) return null;
      return sandboxState();
    },
    async 'sandbox.advance'(i) {
      await sandboxAdmin('clock/advance', { seconds: i.seconds });
      const state = await sandboxState();
      emit({
        type: 'notice',
        level: 'info',
        message: `The sandbox service's clock moved ${i.seconds >= 86_400 ? `${+(i.seconds / 86_400).toFixed(2)} day(s)` : `${+(i.seconds / 3600).toFixed(2)} hour(s)`} forward (your computer's clock is untouched): new posts appear; cache windows, schedules and run times follow it.`,
      });
      return state;
    },
    async 'sandbox.setBalance'(i) {
      await sandboxAdmin('balance', { balance: i.balance });
      return sandboxState();
    },
    async 'sandbox.faults'(i) {
      await sandboxAdmin('chaos', { rate: i.rate });
      sandboxFaultRate = i.rate;
      return sandboxState();
    },
    async 'sandbox.reset'() {
      await sandboxAdmin('chaos', { rate: 0 });
      sandboxFaultRate = 0;
      await sandboxAdmin('faults/clear', {});
      await sandboxAdmin('balance', { balance: sandboxStartBalance ?? 10_000 });
      return sandboxState();
    },
  };
}
