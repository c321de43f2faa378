/**
 * Judgments: label families, relevance and switch receipts. Deterministic functions of the row
 * text (plus seed and row id for the small "could not judge" share and score jitter).
 *
 * Shapes (see docs/sandbox-world.md):
 *  post families
 *   sponsored {p, disclosed: bool, undisclosed: bool, brand: string|null}
 *   intent    {label: INTENT|null, confidence, buyer: bool, seller: bool, urgency 0-3, fits_offer: number 0-1|null}
 *   niche     {label: niche|'personal_no_niche'|'other'|null, confidence, taxonomy}
 *   mention   {about_brand 0-1, sentiment_level 0-4, sentiment_score 0-1|null, sarcasm: bool, aspect, first_hand: bool}
 *   quality   {fact_density 0-3, engagement_bait 0-1, rage_bait 0-1, secondhand 0-1, post_aim}
 *   injection {flagged: bool, p}
 *  comment families
 *   sentiment {label: 'negative'|'neutral'|'positive', p (confidence of that label), score 0-1 (0 most negative)}
 *   spam, question, purchase_intent, complaint, toxic, low_quality, injection: {p}
 */
import type { WorldRow } from '../types';
import { BRANDS, NICHES, NICHE_TAXONOMY, SPAM_MARKERS } from './corpus';
import { hashStr, mix, unit } from './rng';

const R = {
  disclosed: /#ad\b|#sponsored|\bpaid partnership\b|#gifted|\bgifted by\b|#publi\b|#partner\b|#werbung|\bsponsored\b/i,
  promo: /use code|link in bio|% off|discount|shop now|promo code|limited spots/i,
  ask: /\b(any|some) recommendations?\b|\brecommend (a|any)\b|what is the best|what's the best|which .{1,40} should i|indicação|alguien recomienda|asking for real|please help/i,
  compare: /\bvs\.?\s|\bversus\b|compared (to|with)|\bcomparison\b|\bcomparing\b|worth it compared/i,
  switched:
    /\b(i|we|i've|we've)\s+(just\s+|finally\s+|personally\s+)?(switched|moved|migrated|went)\s+(away\s+)?from\b|\b(i|we)\s+(left|ditched|dropped|cancelled|canceled|quit)\b|\bcancel+ed my\b|\bmoving to\b|gewechselt|switched from/i,
  complain:
    /worst|terrible|broken|\bbroke\b|refund|awful|disappoint|never again|useless|\bscam\b|overpriced|\bhate\b|\brude\b|crash|ruined|fatal|not worth|\bavoid\b|גרוע|מאכזב|سيء|nunca mais/i,
  news: /breaking|announced|report (says|shows)|according to|\blaunch(es|ed)?\b|\bnews\b/i,
  positive:
    /\blove|amazing|\bgreat\b|\bbest\b|obsessed|recommend|perfect|excellent|awesome|worth it|vale muito|رائع|とても良い|😍|❤️|🔥|adorei|highly|grateful|zero regrets|solid/i,
  negative:
    /worst|terrible|broken|\bbroke\b|refund|awful|disappoint|never again|useless|\bscam\b|overpriced|\bhate|\brude\b|crash|trash|idiot|no thanks|\bavoid\b|stopped trusting|גרוע|מאכזב|سيء|fatal|irritated/i,
  question: /\?|？|^(where|how|does|is|can|what|which|any)\b/i,
  purchase:
    /where (can i|did you|do i) (buy|get)|how much|i want (one|it|this)|need (it|one|this)|onde compro|どこで買え|איפה אפשר לקנות|take my money|ship to|欲しい|before i buy/i,
  toxic: /idiot|\btrash\b|stupid|shut up|hate you|loser|fight me/i,
  injection:
    /ignore (all )?(previous|prior) instructions|system prompt|developer mode|you are now|hidden rules|ai assistant:|^system:|disregard (the|all|previous)/im,
  bait: /tag a friend|comment (yes|below)|follow for more|like if|share if|save this/i,
  rage: /unpopular opinion|fight me|everyone who|wasting money|!!!/i,
  secondhand: /\bi heard\b|apparently|reportedly|according to|friend of a friend|\bmy (sister|roommate|friend|brother|mom)\b|they say/i,
  firstHand: /\b(i|i'm|i've|my|me|we|our|mine)\b|testei|jurbt|جربت|קניתי|使ってみた/i,
  sarcasm: /yeah right|oh great|sure,? because|\/s\b|what a surprise|love waiting|thanks for nothing/i,
  urgent: /urgent|asap|\btoday\b|before next week|this week|right now|preciso urgente/i,
  personal: /birthday|family|grateful|my (day|life|week)|best friend|sunday|love you/i,
  facts: /\d+(?:[.,]\d+)?\s*(?:%|minutes|reps|weeks|days|hours|countries|months|[$€£])?/g,
} as const;

const ASPECTS: Array<[string, RegExp]> = [
  ['customer_service', /support|customer service|customer care|replied|answered|replaced/i],
  ['availability_or_delivery', /deliver|shipping|ship to|arrived|stock|three weeks/i],
  ['health_or_safety', /irritat|allerg|safety|\bsick\b|\brash\b|skin/i],
  ['price_or_value', /price|[$€£]|expensive|overpriced|cheap|\bfees?\b|worth|discount|sale/i],
  ['advertising_or_campaign', /#ad\b|sponsored|campaign|commercial|partnership/i],
  ['taste_or_quality', /quality|taste|broke|broken|formula|crash|battery|flavor|solid/i],
];

// Single-word niche lookup; multi-word entries are checked with includes().
const NICHE_WORD = new Map<string, number>();
const NICHE_PHRASES: Array<[string, number]> = [];
NICHES.forEach((n, i) => {
  for (const w of [...n.words, ...n.nouns]) {
    const lw = w.toLowerCase();
    if (lw.includes(' ') || lw.includes('-')) NICHE_PHRASES.push([lw, i]);
    else if (!NICHE_WORD.has(lw)) NICHE_WORD.set(lw, i);
  }
});
for (const b of BRANDS) {
  const idx = NICHES.findIndex((n) => n.id === b.niche);
  for (const w of b.name.toLowerCase().split(/[^a-z0-9&]+/)) if (w.length > 3 && !NICHE_WORD.has(w)) NICHE_WORD.set(w, idx);
}
/** Multi-word niche phrases indexed by their first ASCII word. */
const PHRASES_BY_FIRST = new Map<string, Array<[string, number]>>();
for (const [ph, n] of NICHE_PHRASES) {
  const first = ph.match(/[a-z0-9&]+/)?.[0];
  if (!first) continue;
  const a = PHRASES_BY_FIRST.get(first) ?? [];
  a.push([ph, n]);
  PHRASES_BY_FIRST.set(first, a);
}
const WORD_SPLIT = /[^\p{L}\p{N}&]+/u;
/** Niche words are ASCII; a plain ASCII tokenizer is much faster than a Unicode split. */
const ASCII_WORD = /[a-z0-9&]+/g;

export function sentences(text: string): string[] {
  const out: string[] = [];
  const re = /[^.!?。！？\r\n]+[.!?。！？]*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const s = m[0].trim();
    if (s.length > 0) out.push(s);
  }
  return out;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : Math.round(x * 1000) / 1000;
}

/** Evidence: the first sentence that matches `re`. */
function evidence(text: string, re: RegExp | null): { quote: string; sentence_index: number } | null {
  if (!re) return null;
  const ss = sentences(text);
  for (let i = 0; i < ss.length; i++) {
    re.lastIndex = 0;
    if (re.test(ss[i])) return { quote: ss[i], sentence_index: i };
  }
  return null;
}

const NICHE_RE = new Map<number, RegExp>();
function nicheRe(i: number): RegExp {
  let re = NICHE_RE.get(i);
  if (!re) {
    re = new RegExp(
      NICHES[i].words
        .concat(NICHES[i].nouns)
        .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'i',
    );
    NICHE_RE.set(i, re);
  }
  return re;
}

const BRAND_RE = new Map<string, RegExp>();
function brandRegex(brand: string): RegExp {
  let re = BRAND_RE.get(brand);
  if (re) return re;
  re = makeBrandRegex(brand);
  if (BRAND_RE.size > 500) BRAND_RE.clear();
  BRAND_RE.set(brand, re);
  return re;
}

function makeBrandRegex(brand: string): RegExp {
  const esc = brand
    .trim()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/g, '\\s*');
  return new RegExp(`(^|[^\\p{L}\\p{N}])@?${esc}`, 'iu');
}

export interface JudgeOpts {
  families: string[];
  brand?: string;
  brandDescription?: string;
  offer?: string;
  evidence?: boolean;
}

export type Labels = Record<string, Record<string, unknown>>;

export function judge(
  seed: number,
  row: Pick<WorldRow, 'id' | 'text'>,
  kind: 'post' | 'comment',
  o: JudgeOpts,
): { labels: Labels | null; evidence?: Record<string, { quote: string; sentence_index: number } | null> } {
  const h = hashStr(row.id, seed ^ 0x1abe1);
  if (unit(h) < 0.03) return o.evidence ? { labels: null, evidence: {} } : { labels: null };
  const text = row.text ?? '';
  const jit = (k: number) => (unit(mix(h, k)) - 0.5) * 0.1; // ±0.05
  const labels: Labels = {};
  const ev: Record<string, { quote: string; sentence_index: number } | null> = {};
  const fam = o.families;
  for (const f of fam) {
    let value: Record<string, unknown> | null = null;
    let evRe: RegExp | null = null;
    if (kind === 'post') {
      switch (f) {
        case 'sponsored': {
          const disclosed = R.disclosed.test(text);
          const promo = R.promo.test(text);
          const p = disclosed ? 0.92 + jit(1) * 0.8 : promo ? 0.72 + jit(1) : 0.06 + Math.abs(jit(1));
          let brand: string | null = null;
          if (disclosed || promo) {
            const m = /@([A-Za-z0-9_.]+)/.exec(text);
            brand = m ? m[1] : (BRANDS.find((b) => text.includes(b.name))?.handle ?? null);
          }
          value = { p: clamp01(p), disclosed, undisclosed: !disclosed && promo, brand };
          evRe = disclosed ? R.disclosed : promo ? R.promo : null;
          break;
        }
        case 'intent': {
          let label: string | null;
          let re: RegExp | null;
          if (R.switched.test(text)) [label, re] = ['switching_away', R.switched];
          else if (R.ask.test(text)) [label, re] = ['asking_for_recommendation', R.ask];
          else if (R.compare.test(text)) [label, re] = ['comparing_options', R.compare];
          else if (R.complain.test(text)) [label, re] = ['complaining', R.complain];
          else if (R.disclosed.test(text) || R.promo.test(text))
            [label, re] = ['promoting', R.disclosed.test(text) ? R.disclosed : R.promo];
          else if (R.news.test(text)) [label, re] = ['news_or_discussion', R.news];
          else [label, re] = ['other', null];
          let confidence = label === 'other' ? 0.45 + jit(2) * 2 : 0.82 + jit(2) * 2;
          if (label === 'other' && unit(mix(h, 3)) < 0.35) {
            label = null;
            confidence = 0.3 + jit(2);
          }
          const buyer =
            label === 'asking_for_recommendation' || label === 'comparing_options' || label === 'switching_away' || R.purchase.test(text);
          const seller = label === 'promoting';
          const urgency = R.urgent.test(text) ? (/urgent|asap|right now/i.test(text) ? 3 : 2) : buyer ? 1 : 0;
          let fits_offer: number | null = null;
          if (o.offer) {
            const ot = tokens(o.offer);
            const tt = new Set(tokens(text));
            let hit = 0;
            for (const t of ot) if (tt.has(t)) hit++;
            fits_offer = clamp01((buyer ? 0.35 : 0.05) + (ot.length ? (hit / ot.length) * 0.6 : 0) + jit(4));
          }
          value = { label, confidence: clamp01(confidence), buyer, seller, urgency, fits_offer };
          evRe = re;
          break;
        }
        case 'niche': {
          const lt = text.toLowerCase();
          const ws = lt.match(ASCII_WORD) ?? [];
          let label: string | null = null;
          let confidence = 0;
          if (ws.length >= 4 || lt.split(WORD_SPLIT).length >= 5) {
            const counts = new Map<number, number>();
            for (const w of ws) {
              const n = NICHE_WORD.get(w);
              if (n !== undefined) counts.set(n, (counts.get(n) ?? 0) + 1);
            }
            for (const w of ws) {
              const cands = PHRASES_BY_FIRST.get(w);
              if (cands) for (const [ph, n] of cands) if (lt.includes(ph)) counts.set(n, (counts.get(n) ?? 0) + 2);
            }
            let best = -1;
            let bc = 0;
            for (const [n, c] of counts) if (c > bc) [best, bc] = [n, c];
            if (best >= 0) {
              label = NICHES[best].id;
              confidence = Math.min(0.95, 0.55 + 0.12 * bc) + jit(5);
              if (o.evidence) evRe = nicheRe(best);
            } else if (R.personal.test(text)) {
              label = 'personal_no_niche';
              confidence = 0.7 + jit(5);
              evRe = R.personal;
            } else if (unit(mix(h, 6)) < 0.5) {
              label = 'other';
              confidence = 0.5 + jit(5);
            } else confidence = 0.3 + jit(5);
          } else confidence = 0.2 + jit(5);
          value = { label, confidence: clamp01(confidence), taxonomy: NICHE_TAXONOMY };
          break;
        }
        case 'mention': {
          if (!o.brand) continue; // needs a brand; the server warns label_mention_needs_brand
          const bre = brandRegex(o.brand);
          let about = bre.test(text) ? 0.9 + jit(7) : 0.04 + Math.abs(jit(7));
          if (about < 0.5 && o.brandDescription) {
            const dt = new Set(tokens(o.brandDescription));
            let hit = 0;
            for (const t of tokens(text)) if (dt.has(t)) hit++;
            about = Math.min(0.6, about + hit * 0.12);
          }
          const pos = R.positive.test(text) ? 1 : 0;
          const neg = R.negative.test(text) ? 1 : 0;
          const score = clamp01(0.5 + 0.4 * (pos - neg) + jit(8));
          const aspect = ASPECTS.find(([, re]) => re.test(text))?.[0] ?? 'none';
          value = {
            about_brand: clamp01(about),
            sentiment_level: Math.max(0, Math.min(4, Math.round(score * 4))),
            sentiment_score: about >= 0.5 ? score : null,
            sarcasm: R.sarcasm.test(text),
            aspect,
            first_hand: R.firstHand.test(text) && !R.secondhand.test(text),
          };
          evRe = about >= 0.5 ? bre : null;
          break;
        }
        case 'quality': {
          const facts = (text.match(R.facts) ?? []).length;
          const bait = R.bait.test(text);
          const rage = R.rage.test(text);
          const sh = R.secondhand.test(text);
          const disclosed = R.disclosed.test(text) || R.promo.test(text);
          const aim = disclosed
            ? 'sell'
            : rage
              ? 'provoke'
              : facts >= 3 || R.news.test(text)
                ? 'inform'
                : R.positive.test(text) || R.negative.test(text)
                  ? 'opinion'
                  : /lol|funny|meme|😂/i.test(text)
                    ? 'entertain'
                    : 'other';
          value = {
            fact_density: Math.min(3, Math.floor(facts / 1.5)),
            engagement_bait: clamp01(bait ? 0.88 + jit(9) : 0.05 + Math.abs(jit(9))),
            rage_bait: clamp01(rage ? 0.8 + jit(10) : 0.04 + Math.abs(jit(10))),
            secondhand: clamp01(sh ? 0.8 + jit(11) : 0.08 + Math.abs(jit(11))),
            post_aim: aim,
          };
          evRe = bait ? R.bait : rage ? R.rage : sh ? R.secondhand : null;
          break;
        }
        case 'injection': {
          const hit = R.injection.test(text);
          const p = clamp01(hit ? 0.93 + jit(12) : 0.01 + Math.abs(jit(12)) / 5);
          value = { flagged: hit, p };
          evRe = hit ? R.injection : null;
          break;
        }
        default:
          continue;
      }
    } else {
      switch (f) {
        case 'sentiment': {
          const pos = R.positive.test(text) ? 1 : 0;
          const neg = R.negative.test(text) || R.toxic.test(text) ? 1 : 0;
          const score = clamp01(0.5 + 0.42 * (pos - neg) + jit(20));
          const label = score < 0.35 ? 'negative' : score > 0.65 ? 'positive' : 'neutral';
          const p = clamp01(label === 'negative' ? 1 - score : label === 'positive' ? score : 1 - Math.abs(score - 0.5) * 2);
          value = { label, p, score };
          evRe = neg ? (R.negative.test(text) ? R.negative : R.toxic) : pos ? R.positive : null;
          break;
        }
        case 'spam': {
          const hit = SPAM_MARKERS.some((re) => re.test(text));
          value = { p: clamp01(hit ? 0.9 + jit(21) : 0.04 + Math.abs(jit(21))) };
          evRe = hit ? (SPAM_MARKERS.find((re) => re.test(text)) ?? null) : null;
          break;
        }
        case 'question': {
          const hit = R.question.test(text);
          value = { p: clamp01(hit ? 0.9 + jit(22) : 0.05 + Math.abs(jit(22))) };
          evRe = hit ? R.question : null;
          break;
        }
        case 'purchase_intent': {
          const hit = R.purchase.test(text);
          value = { p: clamp01(hit ? 0.85 + jit(23) : 0.05 + Math.abs(jit(23))) };
          evRe = hit ? R.purchase : null;
          break;
        }
        case 'complaint': {
          const hit = R.complain.test(text);
          value = { p: clamp01(hit ? 0.87 + jit(24) : 0.05 + Math.abs(jit(24))) };
          evRe = hit ? R.complain : null;
          break;
        }
        case 'toxic': {
          const hit = R.toxic.test(text);
          value = { p: clamp01(hit ? 0.86 + jit(25) : 0.02 + Math.abs(jit(25)) / 2) };
          evRe = hit ? R.toxic : null;
          break;
        }
        case 'low_quality': {
          const stripped = text.replace(/\s|\p{Extended_Pictographic}|\u200d|\ufe0f/gu, '');
          const hit = stripped.length < 6 || /^(first|nice|lol|ok|wow)!*$/i.test(text.trim());
          value = { p: clamp01(hit ? 0.88 + jit(26) : 0.1 + Math.abs(jit(26))) };
          evRe = hit ? /.+/ : null;
          break;
        }
        case 'injection': {
          const hit = R.injection.test(text);
          value = { p: clamp01(hit ? 0.93 + jit(27) : 0.01 + Math.abs(jit(27)) / 5) };
          evRe = hit ? R.injection : null;
          break;
        }
        default:
          continue;
      }
    }
    labels[f] = value;
    if (o.evidence) ev[f] = evidence(text, evRe);
  }
  return o.evidence ? { labels, evidence: ev } : { labels };
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'and',
  'or',
  'of',
  'to',
  'for',
  'in',
  'on',
  'is',
  'it',
  'my',
  'i',
  'with',
  'this',
  'that',
  'best',
  'de',
  'da',
  'do',
]);
export function tokens(s: string): string[] {
  return s
    .toLowerCase()
    .split(WORD_SPLIT)
    .filter((w) => w.length > 1 && !STOP.has(w));
}

const OTHER_SENSE = /also the name of my|not related, but|nothing to do with|\bnamed after\b/i;
const SPAMMY = /free followers|earn \$|click here|dm me to|limited spots/i;

/** computed.relevance for a search row. */
export function relevance(
  seed: number,
  row: Pick<WorldRow, 'id' | 'text'>,
  topic: string,
): { p: number; sense: string | null; depth: number | null; spam: number | null } | null {
  const h = hashStr(row.id + '\u0002' + topic, seed ^ 0x5e1);
  if (unit(h) < 0.02) return null;
  const tt = tokens(topic.replace(/\b(author|subreddit):\S+/gi, ''));
  const rt = new Set(tokens(row.text ?? ''));
  let hit = 0;
  for (const t of tt) if (rt.has(t)) hit++;
  const frac = tt.length ? hit / tt.length : 0;
  const jit = (unit(mix(h, 1)) - 0.5) * 0.12;
  const other = frac > 0 && OTHER_SENSE.test(row.text);
  const spam = SPAMMY.test(row.text) ? 0.9 : 0.03 + unit(mix(h, 2)) * 0.05;
  let p = frac === 0 ? 0.05 + Math.abs(jit) : 0.45 + 0.5 * frac + jit;
  if (other) p = 0.15 + Math.abs(jit);
  if (spam > 0.5) p *= 0.5;
  const len = (row.text ?? '').length;
  const depth = frac === 0 ? 0 : Math.min(3, 1 + (len > 120 ? 1 : 0) + (len > 400 ? 1 : 0));
  return {
    p: clamp01(p),
    sense: frac === 0 ? null : other ? 'other_meaning' : 'intended',
    depth,
    spam: clamp01(spam),
  };
}

/** Personal switch statements about `brand`: "I switched from X to Y because ...". */
export function switchReceipts(
  rows: WorldRow[],
  brand: string,
): Array<{ comment_id: string; text: string; reason: string; destination: string | null; link: string | null }> {
  const b = brand
    .trim()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/g, '\\s+');
  if (!b) return [];
  const re = new RegExp(
    `\\b(?:i|we)(?:'ve)?\\s+(?:just\\s+|finally\\s+|personally\\s+)?(?:switched|moved|migrated|went)\\s+(?:away\\s+)?from\\s+${b}(?:\\s+(?:to|for)\\s+([^,.;!?\\n—]+?))?(?:\\s+(?:last year|this year|recently))?(?:\\s*(?:because|since|after|—|,)\\s*([^.!?\\n]+))?[.!?\\n]|\\b(?:i|we)\\s+(?:left|ditched|dropped|cancelled|canceled|quit)\\s+${b}(?:\\s+(?:for|and (?:went with|switched to))\\s+([^,.;!?\\n—]+?))?(?:\\s*(?:because|since|after|—|,)\\s*([^.!?\\n]+))?[.!?\\n]`,
    'iu',
  );
  const personalPrefix = /^\s*personally,?\s+/i;
  const out: Array<{ comment_id: string; text: string; reason: string; destination: string | null; link: string | null }> = [];
  for (const row of rows) {
    const text = row.text ?? '';
    const m = re.exec(text.replace(personalPrefix, '') + '\n');
    if (!m) continue;
    const dest = (m[1] ?? m[3] ?? '').trim() || null;
    const reason = (m[2] ?? m[4] ?? '').trim();
    if (!reason && !dest) continue; // low confidence: no reason and no destination
    const post = (row.item.post ?? null) as Record<string, unknown> | null;
    const link = post && typeof post.url === 'string' ? post.url : null;
    out.push({ comment_id: row.id, text, reason: reason || 'not stated', destination: dest, link });
  }
  return out;
}
