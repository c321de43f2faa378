/**
 * Text composition: captions, comments, bios, names. Pure functions of an Rng.
 */
import {
  BIOS,
  BRANDS,
  CAPTIONS,
  CITIES,
  COMMENTS,
  FIRST_NAMES,
  FORUM_COMMENTS,
  HANDLE_WORDS,
  HOSTILE_TEXTS,
  LAST_NAMES,
  NICHES,
  REASONS,
  type Brand,
} from './corpus';
import { Rng } from './rng';

export interface TextCtx {
  niche: number; // index into NICHES
  brand?: Brand;
  brand2?: Brand;
  q?: string;
  name?: string;
  email?: string;
}

const REASONS_DE = ['die App ständig abstürzte', 'der Preis zweimal gestiegen ist', 'der Kundenservice nie geantwortet hat'];
const PH = /\{(\w+)\}/g;

function brandsFor(r: Rng, niche: number): [Brand, Brand] {
  const id = NICHES[niche].id;
  const same = BRANDS.filter((b) => b.niche === id);
  const b1 = same.length > 0 && r.chance(0.7) ? r.pick(same) : r.pick(BRANDS);
  let b2 = r.pick(BRANDS);
  for (let k = 0; k < 4 && b2 === b1; k++) b2 = r.pick(same.length > 1 ? same : BRANDS);
  if (b2 === b1) b2 = BRANDS[(BRANDS.indexOf(b1) + 1) % BRANDS.length];
  return [b1, b2];
}

const COMPILED = new Map<string, string[]>();
/** Template → alternating [literal, key, literal, key, ..., literal]. */
function compile(t: string): string[] {
  let c = COMPILED.get(t);
  if (!c) {
    c = t.split(PH);
    COMPILED.set(t, c);
  }
  return c;
}

export function fill(t: string, r: Rng, ctx: TextCtx): string {
  if (t.indexOf('{') < 0) return t;
  const parts = compile(t);
  const n = NICHES[ctx.niche];
  let b1 = ctx.brand;
  let b2 = ctx.brand2;
  if (!b1 || !b2) {
    const [x, y] = brandsFor(r, ctx.niche);
    b1 = b1 ?? x;
    b2 = b2 ?? (y === b1 ? x : y);
  }
  const B1 = b1;
  const B2 = b2;
  const sub = (k: string): string => {
    switch (k) {
      case 'brand':
        return B1.name;
      case 'bhandle':
        return B1.handle;
      case 'brand2':
        return B2.name;
      case 'noun':
        return r.pick(n.nouns);
      case 'word':
      case 'word2':
        return r.pick(n.words);
      case 'num':
      case 'num2':
      case 'num3':
      case 'num4':
        return String(r.range(2, 60));
      case 'price':
        return r.pick(['$', '€', 'R$', '£']) + String(r.range(19, 899));
      case 'city':
        return r.pick(CITIES);
      case 'reason':
        return r.pick(REASONS);
      case 'reason_de':
        return r.pick(REASONS_DE);
      case 'code':
        return B1.handle.toUpperCase().slice(0, 6) + String(r.range(10, 99));
      case 'q':
        return ctx.q ?? B1.name;
      case 'email':
        return ctx.email ?? 'hello@example.com';
      case 'name':
        return ctx.name ?? B1.name;
      default:
        return k;
    }
  };
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) out += sub(parts[i]) + parts[i + 1];
  return out;
}

const CAPTIONS_BY_LANG = new Map<string, Array<{ t: string; lang: string }>>();
for (const c of CAPTIONS) {
  const a = CAPTIONS_BY_LANG.get(c.lang) ?? [];
  a.push(c);
  CAPTIONS_BY_LANG.set(c.lang, a);
}

/** Language tag a hostile text is written in (for `language`). */
function hostileLang(t: string): string {
  if (/[\u0600-\u06FF]/.test(t) && !/[\u0590-\u05FF]/.test(t)) return 'ar';
  if (/[\u0590-\u05FF]/.test(t) && !/[\u0600-\u06FF]/.test(t)) return 'he';
  return 'en';
}

export function caption(r: Rng, ctx: TextCtx, accountLang: string, hostileRate = 0.1): { text: string; lang: string } {
  if (r.chance(hostileRate)) {
    const t = fill(r.pick(HOSTILE_TEXTS), r, ctx);
    return { text: t, lang: hostileLang(t) };
  }
  const pool = accountLang !== 'en' && r.chance(0.6) ? (CAPTIONS_BY_LANG.get(accountLang) ?? CAPTIONS) : CAPTIONS;
  const c = r.pick(pool);
  let text = fill(c.t, r, ctx);
  // Occasional extras: hashtags, line breaks, mentions.
  if (r.chance(0.3))
    text += (r.chance(0.5) ? '\n\n' : ' ') + '#' + NICHES[ctx.niche].words[0].replace(/\s+/g, '') + ' #' + r.pick(HANDLE_WORDS);
  if (r.chance(0.05)) text += '\r\n— via @' + r.pick(BRANDS).handle;
  return { text, lang: c.lang };
}

export function commentText(r: Rng, ctx: TextCtx, hostileRate = 0.08): { text: string; lang: string } {
  if (r.chance(hostileRate)) {
    const t = fill(r.pick(HOSTILE_TEXTS), r, ctx);
    return { text: t, lang: hostileLang(t) };
  }
  const c = r.pick(COMMENTS);
  return { text: fill(c.t, r, ctx), lang: c.lang };
}

export function forumComment(r: Rng, ctx: TextCtx): { text: string; lang: string } {
  if (r.chance(0.07)) {
    const t = fill(r.pick(HOSTILE_TEXTS), r, ctx);
    return { text: t, lang: hostileLang(t) };
  }
  return { text: fill(r.pick(FORUM_COMMENTS), r, ctx), lang: 'en' };
}

export function bioText(r: Rng, ctx: TextCtx): { text: string; lang: string } {
  if (r.chance(0.06)) {
    const t = fill(r.pick(HOSTILE_TEXTS), r, ctx);
    return { text: t.length > 300 ? t.slice(0, 300) : t, lang: hostileLang(t) };
  }
  const b = r.pick(BIOS);
  return { text: fill(b.t, r, ctx), lang: b.lang };
}

export function personName(r: Rng): string {
  const n = r.pick(FIRST_NAMES) + ' ' + r.pick(LAST_NAMES);
  const x = r.next();
  if (x < 0.04) return n + ' 🌸✨';
  if (x < 0.06) return '=' + n; // spreadsheet-hostile display name
  if (x < 0.07) return '<b>' + n + '</b>';
  if (x < 0.08) return n + ' 👨‍👩‍👧';
  return n;
}

/** A plausible handle for a generated account (ascii, lowercase). */
export function handleFor(r: Rng): string {
  const a = r.pick([
    'ana',
    'ben',
    'chloe',
    'dmitri',
    'emeka',
    'fatima',
    'gabi',
    'hana',
    'ivan',
    'jia',
    'kofi',
    'lucia',
    'mateo',
    'noa',
    'priya',
    'rafa',
    'sofia',
    'tomas',
    'wei',
    'yusuf',
    'zoe',
    'the',
    'real',
    'just',
  ]);
  const b = r.pick(HANDLE_WORDS);
  const sep = r.pick(['', '_', '.', '']);
  const num = r.chance(0.5) ? String(r.range(1, 9999)) : '';
  return a + sep + b + num;
}
