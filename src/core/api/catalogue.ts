import { readFileSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Catalogue, CatalogueEndpoint, CatalogueParam } from '../../shared/api-types';
import { NATIVE_PAGING_PARAMS } from '../../shared/api-types';
import { normalizeEndpoint } from './canonical';

/** Shared query parameters every data endpoint takes, even if an entry does not list it. */
export const ALWAYS_ACCEPTED = new Set(['dry_run']);

export interface PriceRange {
  min: number;
  max: number;
}

export function priceOf(ep: CatalogueEndpoint): PriceRange {
  const c = ep.credits;
  if (typeof c === 'number') return { min: c, max: c };
  return { min: c.min, max: c.max };
}

export function isMetered(ep: CatalogueEndpoint): boolean {
  return typeof ep.credits !== 'number';
}

function intOr1(v: string | undefined): number {
  if (v === undefined) return 1;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

/** max_pages sent (1..5), 1 when absent or not a number. */
export function maxPagesOf(params: Record<string, string>): number {
  return intOr1(params.max_pages);
}

/**
 * Pages one request may read and bill, as far as the parameters alone tell: `max_pages`
 * (Pagination rule 8) or `scan_pages` (photo-network comments, 1..3). Collect-until-N `limit`
 * multiplies too, by a page count only the service knows: the core asks its free quote for that.
 */
export function pagesOf(params: Record<string, string>): number {
  return Math.max(intOr1(params.max_pages), intOr1(params.scan_pages));
}

export function isDryRun(params: Record<string, string>): boolean {
  const v = params.dry_run;
  return v !== undefined && ['1', 'true'].includes(v.toLowerCase());
}

/**
 * Spec "Errors" rule 4: the hold is the listed price, or the top of the range when metered,
 * times the pages the call may read (`max_pages`, `scan_pages`).
 */
export function holdOf(ep: CatalogueEndpoint, params: Record<string, string>): number {
  if (isDryRun(params)) return 0;
  return priceOf(ep).max * pagesOf(params);
}

/** Names of params an endpoint accepts. */
export function paramNames(ep: CatalogueEndpoint): Set<string> {
  return new Set(ep.params.map((p) => p.name));
}

/** The native paging parameter an entry lists (string tokens first, `page` last), or null. */
export function nativePagingParamOf(ep: CatalogueEndpoint): string | null {
  const names = paramNames(ep);
  for (const n of NATIVE_PAGING_PARAMS) if (n !== 'page' && names.has(n)) return n;
  return names.has('page') ? 'page' : null;
}

/**
 * The parameter that carries `next_cursor` on a walk. Pagination rule 1: send it back as
 * `cursor`. Rule 5 allows a native parameter "instead of or beside" `cursor`, but a native
 * parameter expects its own tokens and may ignore a foreign one (charging page 1 again), so
 * `cursor` is used whenever the entry lists it, or lists no native one; where the entry lists only
 * a native parameter the walk still tries `cursor` first and falls back to the native one if the
 * service refuses it (a free 4xx) — see walker.ts. One style per walk.
 */
export function pagingParamOf(ep: CatalogueEndpoint): string {
  void ep;
  return 'cursor';
}

export interface ValidationOk {
  ok: true;
  endpoint: CatalogueEndpoint;
  /** things worth telling the user that do not stop the call (e.g. mention labels without a brand) */
  warnings: Array<{ code: string; message: string }>;
}
export interface ValidationFail {
  ok: false;
  message: string;
}
export type ValidationResult = ValidationOk | ValidationFail;

function fmtParam(p: CatalogueParam): string {
  return `'${p.name}'`;
}

/**
 * Ranges and enums the spec itself states for shared parameters. They apply where the spec says
 * they do even when a catalogue entry does not repeat them.
 */
const SHARED_RULES: Record<string, Pick<CatalogueParam, 'type' | 'enum' | 'minimum' | 'maximum'> & { maxLength?: number }> = {
  max_pages: { type: 'integer', minimum: 1, maximum: 5 },
  recent_days: { type: 'integer', minimum: 1, maximum: 3650 },
  scan_pages: { type: 'integer', minimum: 1, maximum: 3 },
  judgments: { type: 'string', enum: ['on', 'off'] },
  relevance: { type: 'string', enum: ['score', 'filter'] },
  relevance_threshold: { type: 'number', minimum: 0, maximum: 1 },
  fit: { type: 'string', enum: ['goal'] },
  label_evidence: { type: 'string', enum: ['1'] },
  brand: { type: 'string', maxLength: 300 },
  offer: { type: 'string', maxLength: 300 },
  goal: { type: 'string', maxLength: 300 },
  relevant_to: { type: 'string', maxLength: 200 },
};

/**
 * Free, local validation against the catalogue entry. It refuses only what is certainly wrong: a
 * required parameter missing, a value outside a stated range or enum, a malformed number. A
 * parameter the entry does not list is sent (the real catalogue need not repeat the shared and
 * judgment parameters on every entry); if the endpoint does not take it, the service's 400 is free.
 */
export function validateParams(ep: CatalogueEndpoint, params: Record<string, string>): ValidationResult {
  const where = `${ep.platform}/${normalizeEndpoint(ep.platform, ep.path)}`;
  if (!ep.available) return { ok: false, message: `${where} is listed in the catalogue but cannot be called through the API.` };
  const known = new Map(ep.params.map((p) => [p.name, p] as const));
  for (const p of ep.params) {
    const v = params[p.name];
    if (p.required && !p.one_of_group && (v === undefined || v === '')) {
      return { ok: false, message: `${where} needs ${fmtParam(p)}${p.description ? ` (${p.description.replace(/\.$/, '')})` : ''}.` };
    }
  }
  const groups = new Set(ep.params.map((p) => p.one_of_group).filter((g): g is string => !!g));
  for (const g of groups) {
    const members = g
      .split('|')
      .map((s) => s.trim())
      .filter(Boolean);
    // "one of (a | b)" means at least one of them must be sent (spec "What the service does" 2)
    if (!members.some((m) => params[m] !== undefined && params[m] !== '')) {
      return { ok: false, message: `${where} needs one of ${members.map((m) => `'${m}'`).join(' or ')}.` };
    }
  }
  if (params.dry_run !== undefined && !['1', 'true'].includes(params.dry_run.toLowerCase()))
    return { ok: false, message: `Parameter 'dry_run' takes only the value 1; got '${params.dry_run}'.` };
  for (const [k, v] of Object.entries(params)) {
    if (k === 'dry_run') continue;
    const p: (Partial<CatalogueParam> & { maxLength?: number }) | undefined = known.get(k) ?? SHARED_RULES[k];
    if (v === '') return { ok: false, message: `Parameter '${k}' is empty; give it a value or leave it out.` };
    if (!p) continue;
    if (p.enum && p.enum.length) {
      const tokens = v.split(',').map((s) => s.trim());
      if (!p.enum.includes(v) && !tokens.every((t) => p.enum?.includes(t)))
        return { ok: false, message: `Parameter '${k}' must be one of ${p.enum.join(', ')}; got '${v}'.` };
    }
    if (p.type === 'integer' || p.type === 'number') {
      const n = Number(v);
      if (!Number.isFinite(n) || (p.type === 'integer' && !/^-?\d+$/.test(v.trim())))
        return { ok: false, message: `Parameter '${k}' must be ${p.type === 'integer' ? 'a whole number' : 'a number'}; got '${v}'.` };
      if (p.minimum != null && n < p.minimum)
        return {
          ok: false,
          message: `Parameter '${k}' must be at least ${p.minimum}${p.maximum != null ? ` and at most ${p.maximum}` : ''}; got ${v}.`,
        };
      if (p.maximum != null && n > p.maximum)
        return {
          ok: false,
          message: `Parameter '${k}' must be at most ${p.maximum}${p.minimum != null ? ` and at least ${p.minimum}` : ''}; got ${v}.`,
        };
    }
    if (p.maxLength !== undefined && v.length > p.maxLength)
      return { ok: false, message: `Parameter '${k}' is limited to ${p.maxLength} characters; got ${v.length}.` };
    if (p.type === 'boolean' && !['true', 'false', '1', '0'].includes(v.toLowerCase()))
      return { ok: false, message: `Parameter '${k}' must be true or false; got '${v}'.` };
  }
  const warnings: ValidationOk['warnings'] = [];
  const labels = (params.label ?? '').split(',').map((s) => s.trim().toLowerCase());
  if (labels.includes('mention') && !params.brand)
    warnings.push({
      code: 'label_mention_needs_brand',
      message: 'Mention labels need a brand: add brand=<name>. Without it the service skips them (and does not bill them).',
    });
  return { ok: true, endpoint: ep, warnings };
}

/** In-memory index of a loaded catalogue. */
export class CatalogueIndex {
  private byKey = new Map<string, CatalogueEndpoint>();
  readonly platforms: string[];

  constructor(readonly record: Catalogue) {
    const plats = new Set<string>();
    for (const ep of record.endpoints) {
      const path = normalizeEndpoint(ep.platform, ep.path);
      this.byKey.set(`${ep.platform}/${path}`, ep);
      plats.add(ep.platform);
    }
    this.platforms = [...plats].sort();
  }

  find(platform: string, endpoint: string): CatalogueEndpoint | undefined {
    let plat = platform;
    let path = endpoint;
    if (!plat) {
      // "/v1/photo_net/profile" or "photo_net/profile"
      const p = normalizeEndpoint('', endpoint).split('/');
      plat = p.shift() ?? '';
      path = p.join('/');
    }
    return this.byKey.get(`${plat}/${normalizeEndpoint(plat, path)}`);
  }

  list(platform?: string): CatalogueEndpoint[] {
    const all = this.record.endpoints;
    const out = platform ? all.filter((e) => e.platform === platform) : [...all];
    return out.sort((a, b) => (a.platform === b.platform ? a.order - b.order : a.platform < b.platform ? -1 : 1));
  }
}

/** Optional on-disk copy of the catalogue so a restart works before the first fetch. */
export function readCatalogueFile(file: string): { fetchedAt: number; catalogue: Catalogue } | undefined {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as { fetchedAt?: unknown; catalogue?: unknown };
    if (typeof j.fetchedAt === 'number' && isCatalogue(j.catalogue)) return { fetchedAt: j.fetchedAt, catalogue: j.catalogue };
  } catch {
    /* missing or unreadable: fetch again */
  }
  return undefined;
}

export function writeCatalogueFile(file: string, fetchedAt: number, catalogue: Catalogue): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ fetchedAt, catalogue }));
    renameSync(tmp, file);
  } catch {
    /* a cache; failure to write is not fatal */
  }
}

export function isCatalogue(x: unknown): x is Catalogue {
  if (!x || typeof x !== 'object') return false;
  const eps = (x as { endpoints?: unknown }).endpoints;
  return Array.isArray(eps) && eps.every((e) => !!e && typeof e === 'object' && typeof (e as { path?: unknown }).path === 'string');
}
