/**
 * Every library query and watchlist alert is checked for names Loupe does not know before it is
 * run or stored (issue 24 #8): a network, a kind of item, a label family, field or value. A typo
 * matched nothing and succeeded ("Exported 0 rows", exit 0); now it is a `validation` error (HTTP
 * 400, CLI exit 2) with a sentence naming it and the nearest valid names (src/shared/query-names.ts).
 *
 * One check, one place: `withQueryNameCheck` wraps the contract's implementation, so every method
 * whose input carries a query filter (`platforms`, `kinds`, `labels`) or an alert (`alert`) —
 * library, analysis, network, export, watchlists — is checked the same at every door (Electron,
 * web host, the CLI's `ctx.call`); `loupe export`, which reads the archive itself, calls
 * `app.checkQuery` (the same check).
 *
 * What is known:
 * - networks: what the archive holds, else the catalogue's (`GET /v1/endpoints`, free; read only
 *   when a name is not held). A network the catalogue lists that the archive has nothing of is
 *   fine (0 rows is the honest answer). When the catalogue cannot be read, an unknown name near a
 *   known one (a likely typo) is refused, and any other is let through: it cannot be checked;
 * - kinds: the kinds the extraction writes (src/core/archive/extract.ts RECORD_KINDS), the ones the
 *   library's menu offers (LIBRARY_KINDS) and what the archive holds (an item keyed by a record
 *   name the extraction does not know keeps that name as its kind);
 * - labels: the label table (src/shared/labels.ts) and what the archive holds (another legal shape
 *   of the service may send more families, fields or values).
 */
import type { LoupeImpl } from '../shared/contract';
import { labelConditionProblem, LIBRARY_KINDS, nearestNames, unknownNameSentence, type HeldLabels } from '../shared/query-names';
import type { LabelCondition } from '../shared/query';
import { join } from 'node:path';
import type { ApiCore } from './api';
import { readCatalogueFile } from './api';
import type { Archive } from './archive';
import { RECORD_KINDS } from './archive';
import { AppError } from './bridge';

/** What a query or an alert names. */
export interface QueryNames {
  platforms?: readonly string[];
  kinds?: readonly string[];
  labels?: ReadonlyArray<Pick<LabelCondition, 'family' | 'field' | 'op' | 'value'>>;
}

export interface NameSources {
  archive: Pick<Archive, 'heldPlatformKinds' | 'heldLabelFields' | 'holdsLabelValue' | 'heldLabelValues'>;
  /** the catalogue's networks; throws (or null) when it cannot be read now */
  catalogueNetworks(): Promise<readonly string[] | null>;
}

/** How long a check waits for the catalogue before treating it as unreadable. */
const CATALOGUE_WAIT_MS = 10_000;

async function catalogueOrNull(src: NameSources): Promise<{ names: readonly string[] | null; why: string | null }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('it did not answer in time')), CATALOGUE_WAIT_MS);
    });
    const names = await Promise.race([src.catalogueNetworks(), timeout]);
    return { names, why: names ? null : 'it is not loaded' };
  } catch (e) {
    return { names: null, why: e instanceof Error ? e.message : String(e) };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function heldLabels(archive: NameSources['archive']): HeldLabels {
  const fields = new Map<string, string[]>();
  for (const r of archive.heldLabelFields()) fields.set(r.family, [...(fields.get(r.family) ?? []), r.field]);
  return { fields, holds: (f, x, v) => archive.holdsLabelValue(f, x, v), values: (f, x) => archive.heldLabelValues(f, x) };
}

/** The sentences for every unknown name of `q` (empty when all are known). */
export async function queryNameProblems(q: QueryNames, src: NameSources): Promise<string[]> {
  const problems: string[] = [];
  const wantsHeld = !!(q.platforms?.length || q.kinds?.length);
  const held = wantsHeld ? src.archive.heldPlatformKinds() : [];
  if (q.platforms?.length) {
    const heldNets = [...new Set(held.map((r) => r.platform))];
    const unknown = [...new Set(q.platforms)].filter((p) => !heldNets.includes(p));
    if (unknown.length) {
      const cat = await catalogueOrNull(src);
      const known = [...new Set([...heldNets, ...(cat.names ?? [])])];
      for (const p of unknown) {
        if (cat.names?.includes(p)) continue;
        if (!cat.names && nearestNames(p, known).length === 0) continue; // cannot be checked, and not near a known name
        const note = cat.names
          ? ''
          : ` (the service's catalogue could not be read to check it: ${cat.why}; these are the networks the archive holds)`;
        problems.push(unknownNameSentence(p, cat.names ? 'network Loupe knows' : 'network this archive holds', known, 'Networks', note));
      }
    }
  }
  if (q.kinds?.length) {
    const kinds = [...new Set([...RECORD_KINDS, ...LIBRARY_KINDS, ...held.map((r) => r.kind)])];
    for (const k of new Set(q.kinds)) if (!kinds.includes(k)) problems.push(unknownNameSentence(k, 'kind of item', kinds, 'Kinds'));
  }
  if (q.labels?.length) {
    let labels: HeldLabels | null = null;
    for (const c of q.labels) {
      labels ??= heldLabels(src.archive);
      const p = labelConditionProblem(c, labels);
      if (p) problems.push(p);
    }
  }
  return problems;
}

/** Throws a validation error naming every unknown name of `q`. */
export async function checkQueryNames(q: QueryNames, src: NameSources): Promise<void> {
  const problems = await queryNameProblems(q, src);
  if (problems.length) throw new AppError('validation', problems.join(' '));
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isConditions = (v: unknown): v is LabelCondition[] =>
  Array.isArray(v) &&
  v.every(
    (x) =>
      typeof x === 'object' &&
      x !== null &&
      typeof (x as LabelCondition).family === 'string' &&
      typeof (x as LabelCondition).field === 'string',
  );

/**
 * The query filters and alerts anywhere in a method's (parsed) input: every object with
 * `platforms`, `kinds` or `labels` arrays (a library query, wherever a method nests it: `query`,
 * `series[].query`, …) and every `alert` (a watchlist's label conditions, in `create` or a patch).
 */
export function namesIn(input: unknown, depth = 0, out: QueryNames[] = []): QueryNames[] {
  if (depth > 6 || typeof input !== 'object' || input === null) return out;
  if (Array.isArray(input)) {
    for (const x of input) if (typeof x === 'object' && x !== null) namesIn(x, depth + 1, out);
    return out;
  }
  const o = input as Record<string, unknown>;
  const found: { -readonly [K in keyof QueryNames]: QueryNames[K] } = {};
  if (isStrings(o.platforms)) found.platforms = o.platforms;
  if (isStrings(o.kinds)) found.kinds = o.kinds;
  if (isConditions(o.labels)) found.labels = o.labels;
  if (isConditions(o.alert)) found.labels = [...(found.labels ?? []), ...o.alert];
  // a thread names its post's network (issue 27 #12): a typo there is refused like one in `platforms`
  const thread = o.thread as { platform?: unknown } | undefined;
  if (typeof thread === 'object' && thread !== null && typeof thread.platform === 'string')
    found.platforms = [...(found.platforms ?? []), thread.platform];
  if (found.platforms || found.kinds || found.labels) out.push(found);
  for (const [k, v] of Object.entries(o))
    if (k !== 'labels' && k !== 'alert' && typeof v === 'object' && v !== null) namesIn(v, depth + 1, out);
  return out;
}

/** The contract's implementation with every query filter and alert checked first (one place for every door). */
export function withQueryNameCheck(impl: LoupeImpl, src: NameSources): LoupeImpl {
  const out: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const [method, fn] of Object.entries(impl) as Array<[string, (input: unknown) => Promise<unknown>]>) {
    out[method] = async (input) => {
      const found = namesIn(input);
      if (found.length) {
        const problems = (await Promise.all(found.map((q) => queryNameProblems(q, src)))).flat();
        if (problems.length) throw new AppError('validation', [...new Set(problems)].join(' '));
      }
      return fn(input);
    };
  }
  // eslint-disable-next-line no-restricted-syntax -- `out` wraps every method of `impl` by name (the loop above): TypeScript cannot follow a keyed rebuild
  return out as unknown as LoupeImpl;
}

/**
 * The app's name sources: its archive, and the catalogue of the service in use — loaded (memory,
 * the catalogue file, else `GET /v1/endpoints`), else the copy in memory or in
 * `<dataDir>/catalogue.json` however old (names change rarely; an old list beats none).
 */
export function appNameSources(archive: NameSources['archive'], api: () => Promise<ApiCore>, dataDir: string): NameSources {
  const networks = (eps: ReadonlyArray<{ platform: string }>) => [...new Set(eps.map((e) => e.platform))];
  return {
    archive,
    async catalogueNetworks() {
      let core: ApiCore | null = null;
      try {
        core = await api();
        await core.catalogue.load();
        return networks(core.catalogue.list());
      } catch (e) {
        const kept = core?.catalogue.list() ?? [];
        if (kept.length) return networks(kept);
        const file = readCatalogueFile(join(dataDir, 'catalogue.json'));
        if (file) return networks(file.catalogue.endpoints);
        throw e;
      }
    },
  };
}
