/**
 * Patch schemas: a change names the fields it changes, and changes only those (issue 24 #1).
 *
 * `patchOf(whole)` derives the patch schema of an update method from the schema of the whole
 * object, by construction rather than by care:
 *   - every field is optional and carries NO default: zod's `.partial()` keeps a field's
 *     `.default(...)`, so `{ paused: true }` used to parse to `{ paused: true, watches: [],
 *     alert: null, … }` and the update wiped what it did not name;
 *   - a field given as `undefined` is left out of the parsed patch (not named), so the core sees
 *     exactly the keys that carry a value;
 *   - a field the object does not have is refused (a typo such as `pasued` is an error, never a
 *     silent no-op).
 * The core applies `Object.keys(patch)` and nothing else (e.g. src/core/watch/service.ts).
 */
import { z } from 'zod';

/** A field's schema without `.default()` / `.prefault()` / `.optional()` around it. */
export type Bare<T> =
  T extends z.ZodDefault<infer I> ? Bare<I> : T extends z.ZodPrefault<infer I> ? Bare<I> : T extends z.ZodOptional<infer I> ? Bare<I> : T;

function bare(t: z.ZodType): z.ZodType {
  let s: z.ZodType = t;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodPrefault || s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
    else return s;
  }
}

export type PatchShape<S extends z.ZodRawShape> = { [K in keyof S]: z.ZodOptional<Bare<S[K]>> };
export type Patch<S extends z.ZodRawShape> = { [K in keyof S]?: z.output<Bare<S[K]>> };

/** The patch schema of an object schema: any subset of its fields, no defaults, no unknown field. */
export function patchOf<S extends z.ZodRawShape>(whole: z.ZodObject<S>) {
  // eslint-disable-next-line no-restricted-syntax -- Object.fromEntries forgets the keys: the shape is whole.shape's own keys, each made optional
  const shape = Object.fromEntries(
    Object.entries(whole.shape).map(([k, t]) => [k, bare(t as z.ZodType).optional()]),
  ) as unknown as PatchShape<S>;
  return z.strictObject(shape).transform((p) => namedOnly(p) as Patch<S>);
}

/** The keys of a patch that carry a value (what it names), in order. */
export function namedOnly<P extends object>(p: P): Partial<P> {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Partial<P>;
}

/** The fields a parsed patch names. */
export function namedFields<P extends object>(p: P): Array<keyof P & string> {
  return Object.keys(p).filter((k) => (p as Record<string, unknown>)[k] !== undefined) as Array<keyof P & string>;
}
