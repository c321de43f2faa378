/**
 * Patch schemas (src/shared/patch.ts) carry no defaults: a parsed patch names exactly the fields
 * its input named, for every subset of every update method's fields (issue 24 #1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { METHOD_NAMES, methods, settingsSchema, watchlistInput } from './contract';
import { patchOf } from './patch';

/** The contract's update methods, with a whole object of each and how an input wraps a patch. */
const UPDATES = {
  'watchlists.update': {
    whole: {
      name: 'Brands',
      schedule: { everyHours: 6 },
      budgetPerRun: 100,
      budgetPerMonth: 900,
      alert: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }],
      watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } }],
      firstRunPages: 2,
      paused: true,
    },
    wrap: (patch: object) => ({ id: 'x', patch }),
    unwrap: (parsed: unknown) => (parsed as { patch: object }).patch,
  },
  'settings.update': {
    whole: {
      baseUrl: null,
      rateLimit: { requests: 10, windowSeconds: 60 },
      maxInFlight: 2,
      askAboveCredits: 50,
      maxWaitSeconds: 60,
      attemptTimeoutSeconds: 30,
      theme: 'dark',
      remoteImages: 'always',
      authorName: 'Ana',
      alertWebhookUrl: 'https://hooks.example/T1',
      alertEmail: { host: 'smtp.example.org', port: 587, security: 'starttls', user: 'ana', from: 'a@example.org', to: ['b@example.org'] },
    },
    wrap: (patch: object) => patch,
    unwrap: (parsed: unknown) => parsed as object,
  },
} as const;

describe('patch schemas', () => {
  it('the whole objects here name every field (a field added to a schema joins them)', () => {
    expect(Object.keys(UPDATES['settings.update'].whole).sort()).toEqual(Object.keys(settingsSchema.shape).sort());
    expect(Object.keys(UPDATES['watchlists.update'].whole).sort()).toEqual([...Object.keys(watchlistInput.shape), 'paused'].sort());
  });

  it('the contract has these update methods (a new one joins UPDATES here and src/core/update-methods.test.ts)', () => {
    expect(METHOD_NAMES.filter((m) => /\.update$/.test(m)).sort()).toEqual(Object.keys(UPDATES).sort());
  });

  for (const [method, u] of Object.entries(UPDATES)) {
    it(`${method}: any subset of the fields parses to exactly that subset`, () => {
      const keys = Object.keys(u.whole) as Array<keyof typeof u.whole>;
      fc.assert(
        fc.property(fc.subarray(keys), (named) => {
          const patch = Object.fromEntries(named.map((k) => [k, u.whole[k]]));
          const parsed = u.unwrap(methods[method as keyof typeof methods].input.parse(u.wrap(patch)));
          expect(Object.keys(parsed).sort()).toEqual([...named].sort());
          expect(parsed).toEqual(patch);
        }),
        { numRuns: 100 },
      );
    });

    it(`${method}: a field given as undefined is not named; a field the object lacks is refused`, () => {
      const input = methods[method as keyof typeof methods].input;
      const first = Object.keys(u.whole)[0];
      expect(u.unwrap(input.parse(u.wrap({ [first]: undefined })))).toEqual({});
      expect(() => input.parse(u.wrap({ notAField: 1 }))).toThrow(/notAField/);
    });
  }

  it('patchOf strips defaults at any depth of wrapping, and keeps each field’s own rules', () => {
    const whole = z.object({
      a: z.number().int().default(3),
      b: z.string().nullable().default(null),
      c: z.array(z.string()).default([]).optional(),
      d: z.boolean().prefault(true),
    });
    const p = patchOf(whole);
    expect(p.parse({})).toEqual({});
    expect(p.parse({ b: null })).toEqual({ b: null });
    expect(() => p.parse({ a: 1.5 })).toThrow();
    // the whole schema still has its defaults (creation)
    expect(whole.parse({})).toEqual({ a: 3, b: null, c: [], d: true });
    expect(watchlistInput.parse({ name: 'x' })).toMatchObject({ watches: [], alert: null });
    expect(settingsSchema.partial().parse({})).toEqual({});
  });
});
