/**
 * The label families the spec names, field by field: what values each field takes, and the words
 * an analyst reads (the API's name stays on hover). Used to validate label overrides (core: an
 * override must be a value the service itself could have given — issue 14 #4) and to offer those
 * values as choices in the UI (drawer, library label conditions). Value-free of zod: the renderer
 * imports it.
 */

export type LabelFieldSpec =
  | { type: 'enum'; values: readonly string[]; nullable?: boolean; words?: Readonly<Record<string, string>> }
  /** probability / score 0–1 */
  | { type: 'prob' }
  | { type: 'int'; min: number; max: number }
  | { type: 'bool' }
  /** free text as the service gives it (brand names, niche slugs, taxonomy names) */
  | { type: 'text'; pattern?: RegExp; hint?: string; extra?: readonly string[]; seenOnly?: boolean };

export interface LabelFamilySpec {
  /** analyst words */
  title: string;
  fields: Readonly<Record<string, LabelFieldSpec & { title: string }>>;
}

export const INTENT_WORDS: Readonly<Record<string, string>> = {
  asking_for_recommendation: 'asking for a recommendation',
  comparing_options: 'comparing options',
  switching_away: 'switching away',
  complaining: 'complaining',
  promoting: 'promoting',
  news_or_discussion: 'news or discussion',
  other: 'other',
};

const prob = (title: string) => ({ type: 'prob' as const, title });

export const LABEL_SPECS: Readonly<Record<string, LabelFamilySpec>> = {
  sponsored: {
    title: 'Sponsored',
    fields: {
      p: prob('likelihood it is paid'),
      disclosed: { type: 'bool', title: 'disclosure marker present' },
      undisclosed: { type: 'bool', title: 'likely paid, no marker' },
      brand: { type: 'text', title: 'promoted account', hint: 'the promoted account, as the service names it' },
    },
  },
  intent: {
    title: 'Intent',
    fields: {
      label: { type: 'enum', values: Object.keys(INTENT_WORDS), nullable: true, words: INTENT_WORDS, title: 'intent' },
      confidence: prob('confidence'),
      buyer: { type: 'bool', title: 'buyer' },
      seller: { type: 'bool', title: 'seller' },
      urgency: { type: 'int', min: 0, max: 3, title: 'urgency (0–3)' },
      fits_offer: prob('fits your offer'),
    },
  },
  niche: {
    title: 'Niche',
    fields: {
      // one of the 33 niches of the service's published taxonomy (not listed in the spec), or
      // personal_no_niche / other: a lowercase slug, as the service writes them
      // seenOnly: the core accepts a niche the archive already holds for some item, or these two
      label: {
        type: 'text',
        pattern: /^[a-z][a-z0-9_]{1,60}$/,
        extra: ['personal_no_niche', 'other'],
        seenOnly: true,
        hint: 'a niche of the taxonomy as the service writes it (e.g. personal_no_niche, other)',
        title: 'niche',
      },
      confidence: prob('confidence'),
      taxonomy: { type: 'text', title: 'taxonomy' },
    },
  },
  mention: {
    title: 'Brand mention',
    fields: {
      about_brand: prob('about the brand'),
      sentiment_level: { type: 'int', min: 0, max: 4, title: 'sentiment (0 very negative – 4 very positive)' },
      sentiment_score: prob('sentiment score'),
      sarcasm: { type: 'bool', title: 'sarcasm' },
      aspect: {
        type: 'enum',
        values: [
          'taste_or_quality',
          'price_or_value',
          'availability_or_delivery',
          'health_or_safety',
          'advertising_or_campaign',
          'customer_service',
          'none',
        ],
        words: {
          taste_or_quality: 'taste or quality',
          price_or_value: 'price or value',
          availability_or_delivery: 'availability or delivery',
          health_or_safety: 'health or safety',
          advertising_or_campaign: 'advertising or campaign',
          customer_service: 'customer service',
          none: 'none',
        },
        title: 'aspect',
      },
      first_hand: { type: 'bool', title: 'first-hand' },
    },
  },
  quality: {
    title: 'Quality',
    fields: {
      fact_density: { type: 'int', min: 0, max: 3, title: 'fact density (0–3)' },
      engagement_bait: prob('engagement bait'),
      rage_bait: prob('rage bait'),
      secondhand: prob('second-hand'),
      post_aim: {
        type: 'enum',
        values: ['inform', 'opinion', 'sell', 'entertain', 'provoke', 'other'],
        words: { inform: 'inform', opinion: 'opinion', sell: 'sell', entertain: 'entertain', provoke: 'provoke', other: 'other' },
        title: 'aim of the post',
      },
    },
  },
  injection: { title: 'Prompt injection', fields: { flagged: { type: 'bool', title: 'flagged' }, p: prob('likelihood') } },
  sentiment: {
    title: 'Sentiment',
    fields: {
      label: {
        type: 'enum',
        values: ['negative', 'neutral', 'positive'],
        words: { negative: 'negative', neutral: 'neutral', positive: 'positive' },
        title: 'sentiment',
      },
      p: prob('confidence'),
      score: prob('score (0 most negative)'),
    },
  },
  spam: { title: 'Spam', fields: { p: prob('likelihood') } },
  question: { title: 'Question', fields: { p: prob('likelihood') } },
  purchase_intent: { title: 'Purchase intent', fields: { p: prob('likelihood') } },
  complaint: { title: 'Complaint', fields: { p: prob('likelihood') } },
  toxic: { title: 'Toxic', fields: { p: prob('likelihood') } },
  low_quality: { title: 'Low quality', fields: { p: prob('likelihood') } },
};

/** The spec of one label field, or undefined when the spec names no such family/field. */
export function labelFieldSpec(family: string, field: string): (LabelFieldSpec & { title: string }) | undefined {
  return Object.prototype.hasOwnProperty.call(LABEL_SPECS, family) &&
    Object.prototype.hasOwnProperty.call(LABEL_SPECS[family].fields, field)
    ? LABEL_SPECS[family].fields[field]
    : undefined;
}

/**
 * Why `value` cannot be the value of `family.field`, in an analyst's words; null when it can.
 * `null` (the service could not judge) is accepted where the spec allows it (enum fields marked
 * nullable, and every probability). `seen`: values the archive holds for that field (checked for
 * `seenOnly` fields such as niche.label, whose taxonomy the spec does not list).
 */
export function labelValueProblem(family: string, field: string, value: unknown, seen?: readonly unknown[]): string | null {
  const spec = labelFieldSpec(family, field);
  if (!spec) {
    const fam = Object.prototype.hasOwnProperty.call(LABEL_SPECS, family) ? LABEL_SPECS[family] : undefined;
    return fam
      ? `${fam.title} has no field "${field}" (fields: ${Object.keys(fam.fields).join(', ')}).`
      : `"${family}" is not a label family (families: ${Object.keys(LABEL_SPECS).join(', ')}).`;
  }
  const name = `${family}.${field}`;
  switch (spec.type) {
    case 'enum':
      if (value === null && spec.nullable) return null;
      if (typeof value === 'string' && spec.values.includes(value)) return null;
      return `${name} must be one of ${spec.values.join(', ')}${spec.nullable ? ' (or unsure)' : ''}; got ${JSON.stringify(value)}.`;
    case 'prob':
      if (value === null) return null;
      return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1
        ? null
        : `${name} is a probability from 0 to 1; got ${JSON.stringify(value)}.`;
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) && value >= spec.min && value <= spec.max
        ? null
        : `${name} is a whole number from ${spec.min} to ${spec.max}; got ${JSON.stringify(value)}.`;
    case 'bool':
      return typeof value === 'boolean' ? null : `${name} is yes or no (true/false); got ${JSON.stringify(value)}.`;
    case 'text':
      if (value === null) return null;
      if (typeof value !== 'string' || value.trim() === '' || value.length > 300)
        return `${name} is a text of 1–300 characters; got ${JSON.stringify(value)}.`;
      if (spec.pattern && !spec.pattern.test(value))
        return `${name} must be ${spec.hint ?? `like ${String(spec.pattern)}`}; got ${JSON.stringify(value)}.`;
      if (spec.seenOnly && seen && !spec.extra?.includes(value) && !seen.includes(value)) {
        const known = [...new Set([...(spec.extra ?? []), ...seen.filter((x): x is string => typeof x === 'string')])];
        return `${name} must be a value the service uses (${known.slice(0, 12).join(', ')}${known.length > 12 ? ', …' : ''}); got ${JSON.stringify(value)}.`;
      }
      return null;
  }
}

/** The analyst's words for a label value (enum words, yes/no, numbers as given); `—` for null. */
export function labelValueWords(family: string, field: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  const spec = labelFieldSpec(family, field);
  if (spec?.type === 'enum' && typeof value === 'string') return spec.words?.[value] ?? value.replace(/_/g, ' ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value.replace(/_/g, ' ');
  return String(value);
}
