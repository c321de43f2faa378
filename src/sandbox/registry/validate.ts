/**
 * Parameter validation, driven by the EndpointDef's params. Runs before billing: every failure
 * is a free 400 `INVALID_REQUEST` with a sentence naming the parameter and what is accepted.
 *
 * Normalisation (returned params are strings):
 *  - empty values are treated as absent;
 *  - booleans become `true` / `false` (inputs 1/0/true/false/yes/no, any case);
 *  - integers and numbers are re-printed canonically (`007` → `7`);
 *  - enum values and CSV tokens take their canonical spelling (matched case-insensitively),
 *    CSV lists are trimmed and de-duplicated;
 *  - a leading `@` is removed from handles.
 * Defaults are NOT filled in; use `paramDefault()`.
 */
import type { EndpointDef } from '../types';
import type { RegistryParam } from './params';

export type ValidationResult = { ok: true; params: Record<string, string> } | { ok: false; type: string; message: string };

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/** True when a normalised (or raw) boolean parameter value means yes. */
export function isTrue(v: string | undefined): boolean {
  return v !== undefined && TRUE.has(v.toLowerCase());
}

/** The documented default of a parameter, if any. */
export function paramDefault(def: EndpointDef, name: string): string | undefined {
  const p = def.params.find((x) => x.name === name) as RegistryParam | undefined;
  return p?.defaultValue;
}

/** Parses a `since`/`until` value to ms since epoch; `undefined` when the shape is not accepted. */
export function parseDateParam(v: string, opts: { requireTz?: boolean; endOfDay?: boolean } = {}): number | undefined {
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (dateOnly) {
    const [y, m, d] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    const t = Date.UTC(y, m - 1, d);
    const back = new Date(t);
    if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) return undefined;
    return opts.endOfDay ? t + 86_400_000 - 1 : t;
  }
  const dt = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(v);
  if (!dt) return undefined;
  const tz = dt[8];
  if (opts.requireTz && !tz) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0));
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const iso = `${dt[1]}-${dt[2]}-${dt[3]}T${dt[4]}:${dt[5]}:${dt[6] ?? '00'}${dt[7] ? '.' + dt[7].slice(0, 3).padEnd(3, '0') : ''}${tz ? normaliseTz(tz) : 'Z'}`;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return undefined;
  // Reject impossible calendar days that Date.parse would roll over (e.g. 02-30).
  const dayCheck = new Date(Date.UTC(y, mo - 1, d));
  if (dayCheck.getUTCDate() !== d) return undefined;
  return t;
}

function normaliseTz(tz: string): string {
  if (tz.toUpperCase() === 'Z') return 'Z';
  return tz.length === 5 ? `${tz.slice(0, 3)}:${tz.slice(3)}` : tz;
}

const fail = (message: string): ValidationResult => ({ ok: false, type: 'INVALID_REQUEST', message });

function where(def: EndpointDef): string {
  return `GET /v1/${def.platform}/${def.path}`;
}

function csvItems(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function validateParams(def: EndpointDef, query: Record<string, string>): ValidationResult {
  const byName = new Map<string, RegistryParam>();
  for (const p of def.params) byName.set(p.name, p as RegistryParam);

  // 1. Unknown parameter names.
  const unknown = Object.keys(query).filter((k) => !byName.has(k));
  if (unknown.length > 0) {
    const list = unknown.map((k) => `'${k}'`).join(', ');
    const accepted = def.params.map((p) => p.name).join(', ');
    return fail(`${where(def)} does not accept the parameter${unknown.length > 1 ? 's' : ''} ${list}. Accepted parameters: ${accepted}.`);
  }

  // 2. Per-parameter shape checks and normalisation.
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(query)) {
    const p = byName.get(name) as RegistryParam;
    const v = typeof raw === 'string' ? raw.trim() : String(raw);
    if (v === '') continue; // empty = absent
    const r = checkOne(def, p, v);
    if (typeof r !== 'string') return r;
    out[name] = r;
  }

  // 3. Required and one-of groups.
  const groups = new Map<string, string[]>();
  for (const p of def.params) {
    if (p.required && out[p.name] === undefined) {
      return fail(`Missing required parameter '${p.name}' for ${where(def)}: ${p.description}`);
    }
    if (p.one_of_group) groups.set(p.one_of_group, p.one_of_group.split('|'));
  }
  for (const [group, members] of groups) {
    if (!members.some((m) => out[m] !== undefined)) {
      return fail(`${where(def)} needs one of the parameters ${members.map((m) => `'${m}'`).join(' or ')} (one_of_group ${group}).`);
    }
  }

  // 4. Dependency rules (spec "Judgment parameters", "Errors" 7, Incremental sync).
  const dep = dependencies(def, out);
  if (dep) return fail(dep);

  return { ok: true, params: out };
}

function checkOne(def: EndpointDef, p: RegistryParam, v: string): string | ValidationResult {
  const label = `Parameter '${p.name}'`;
  switch (p.type) {
    case 'boolean': {
      const l = v.toLowerCase();
      if (TRUE.has(l)) return 'true';
      if (FALSE.has(l)) return 'false';
      return fail(`${label} must be a boolean (true/false or 1/0); got '${clip(v)}'.`);
    }
    case 'integer': {
      if (!/^[+-]?\d+$/.test(v)) return fail(`${label} must be an integer; got '${clip(v)}'.`);
      const n = Number(v);
      const b = bounds(p, n, label);
      return b ?? String(n);
    }
    case 'number': {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) return fail(`${label} must be a number; got '${clip(v)}'.`);
      const n = Number(v);
      if (!Number.isFinite(n)) return fail(`${label} must be a finite number; got '${clip(v)}'.`);
      const b = bounds(p, n, label);
      return b ?? String(n);
    }
    default:
      break;
  }
  // string
  if (p.maxLength !== undefined && v.length > p.maxLength) {
    return fail(`${label} is too long: ${v.length} characters, at most ${p.maxLength} allowed.`);
  }
  if (p.enum && p.enum.length > 0) {
    const hit = p.enum.find((e) => e.toLowerCase() === v.toLowerCase());
    if (hit === undefined) return fail(`${label} must be one of ${p.enum.join(', ')}; got '${clip(v)}'.`);
    return hit;
  }
  if (p.csv || p.maxItems !== undefined) {
    const items = csvItems(v);
    if (items.length === 0) return fail(`${label} must list at least one value.`);
    const outItems: string[] = [];
    for (const it of items) {
      let canon = it;
      if (p.csv) {
        const hit = p.csv.find((e) => e.toLowerCase() === it.toLowerCase());
        if (hit === undefined)
          return fail(`${label}: '${clip(it)}' is not accepted here; use a comma-separated list of ${p.csv.join(', ')}.`);
        canon = hit;
      }
      if (!outItems.includes(canon)) outItems.push(canon);
    }
    if (p.maxItems !== undefined && outItems.length > p.maxItems) {
      return fail(`${label} lists ${outItems.length} values; at most ${p.maxItems} are accepted per call.`);
    }
    return outItems.join(',');
  }
  if (p.format) {
    const tz = p.format === 'date_tz';
    if (parseDateParam(v, { requireTz: tz }) === undefined) {
      return fail(
        tz
          ? `${label} must be an ISO date (YYYY-MM-DD) or an ISO datetime with a timezone (e.g. 2025-01-31T12:00:00Z) on ${where(def)}; got '${clip(v)}'.`
          : `${label} must be YYYY-MM-DD or an ISO 8601 timestamp (e.g. 2025-01-31T12:00:00Z); got '${clip(v)}'.`,
      );
    }
    return v;
  }
  if (p.stripAt && v.startsWith('@')) {
    const s = v.slice(1).trim();
    if (s === '') return fail(`${label} must name an account.`);
    return s;
  }
  return v;
}

function bounds(p: RegistryParam, n: number, label: string): ValidationResult | undefined {
  const min = p.minimum ?? undefined;
  const max = p.maximum ?? undefined;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    const range = min !== undefined && max !== undefined ? `${min}..${max}` : min !== undefined ? `>= ${min}` : `<= ${max}`;
    return fail(`${label} must be in ${range}; got ${n}.`);
  }
  return undefined;
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function dependencies(def: EndpointDef, q: Record<string, string>): string | undefined {
  const labels = q.label ? q.label.split(',') : [];
  if (q.label_evidence !== undefined && q.label === undefined) {
    return "Parameter 'label_evidence' is only accepted together with 'label' (name the label families to explain).";
  }
  if (q.label && labels.includes('none') && labels.length > 1) {
    return "Parameter 'label': 'none' cannot be combined with other label families.";
  }
  if (q.exclude !== undefined) {
    for (const preset of q.exclude.split(',')) {
      const needed = def.labels === 'post' ? 'quality' : preset; // post: engagement_bait ← quality
      if (!labels.includes(needed)) {
        return `Parameter 'exclude=${preset}' needs '${needed}' in 'label' (e.g. label=${needed}&exclude=${preset}).`;
      }
    }
  }
  if (q.fit !== undefined && q.goal === undefined) {
    return "Parameter 'fit=goal' requires 'goal' (what the rows are for, up to 300 characters).";
  }
  if (q.fit_tokens !== undefined && q.fit !== 'goal') {
    return "Parameter 'fit_tokens' is only accepted with 'fit=goal'.";
  }
  if (q.relevance === undefined) {
    for (const n of ['relevance_threshold', 'relevant_to']) {
      if (q[n] !== undefined) return `Parameter '${n}' is only accepted with 'relevance' (score or filter).`;
    }
  }
  if (q.since !== undefined && q.until !== undefined) {
    const tz = def.params.find((p) => p.name === 'since') as RegistryParam | undefined;
    const requireTz = tz?.format === 'date_tz';
    const s = parseDateParam(q.since, { requireTz });
    const u = parseDateParam(q.until, { requireTz, endOfDay: true });
    if (s !== undefined && u !== undefined && s > u) {
      return `Parameter 'since' (${q.since}) is after 'until' (${q.until}); no row can match.`;
    }
  }
  if (def.noSiteOperator && q.query !== undefined && /(^|\s)-?site:/i.test(q.query)) {
    return "The 'site:' operator is not supported in group search; send keywords only. Nothing was charged.";
  }
  return undefined;
}
