/**
 * A watchlist alert's conditions in an analyst's words (issue 27 #1): "Sentiment = negative",
 * not `sentiment` / `label` / `eq` / `negative` — in the inbox, its deliveries and the
 * Watchlists view. Labels and fields by their spec titles (src/shared/labels.ts).
 */
import type { LabelCondition } from './query';
import { LABEL_SPECS, labelFieldSpec, labelValueWords } from './labels';

const OP_WORDS: Record<LabelCondition['op'], string> = { eq: '=', neq: '≠', gte: '≥', lte: '≤', gt: '>', lt: '<' };

/** One condition: "Sponsored likelihood it is paid ≥ 0.8", "Sentiment = negative" (a field named as its label once). */
export function conditionWords(c: LabelCondition): string {
  const family = Object.prototype.hasOwnProperty.call(LABEL_SPECS, c.family) ? LABEL_SPECS[c.family].title : c.family;
  const field = labelFieldSpec(c.family, c.field)?.title ?? c.field;
  const what = field.toLowerCase() === family.toLowerCase() ? family : `${family} ${field}`;
  return `${what} ${OP_WORDS[c.op]} ${labelValueWords(c.family, c.field, c.value)}`;
}

/** Every condition, joined: "Sentiment = negative and Intent = complaining". */
export function conditionText(alert: readonly LabelCondition[]): string {
  return alert.map(conditionWords).join(' and ');
}
