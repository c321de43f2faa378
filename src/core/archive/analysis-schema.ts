/**
 * The analysis index's tables and triggers (docs/analysis.md "The analysis index"), created by
 * AnalysisTables.createSchema (./analysis-index.ts).
 */
import { DAY_MS } from './days';
import { authorSchema, AUTHOR_DROP } from './author-summary';

/** the day number undated items are summarised under (no date filter reaches it) */
export const UNDATED = -999_999_999;
const DAY = `coalesce((x - ((x % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS}) / ${DAY_MS}, ${UNDATED})`;
/** The UTC day number of a time column or parameter as SQL (UNDATED when null): the one spelling of an_item_terms's `day`. */
export const dayOf = (col: string): string => DAY.replace(/x/g, col);
/** The UTC day number of a publication time in JS (UNDATED when null): the same number dayOf gives for an integer time. */
export const dayNumber = (pub: number | null): number => (pub === null ? UNDATED : Math.floor(pub / DAY_MS));

/**
 * an_item_terms (index version 4): keyed by UTC day before rid, so a query's items of a date range are
 * read from a few neighbouring pages (keyed by rid alone, the ~10k items of a month of a 1M-post
 * archive each sat on a page of their own), and holding the item's publication time and counts
 * in front of its term ids (one blob, term-ids.ts encodeItemTerms), so a frequency table over the
 * items reads no `items` row (kept equal to the items' counts by the index's upkeep). New items
 * land at the end of their day (rids grow).
 */
export const ITEM_TERMS_COLUMNS = 'field INTEGER NOT NULL, day INTEGER NOT NULL, rid INTEGER NOT NULL, data BLOB NOT NULL';

/**
 * The highest rid the index has taken in: the daily summary's watermark, or the terms' when they
 * are ahead of it (a build from scratch keeps its daily counts in memory until its items are all
 * in, analysis/daily-acc.ts). An item up to it that changes or goes is logged for the upkeep.
 */
const TAKEN = "(SELECT max(v) FROM an_state WHERE k IN ('watermark', 'terms_upto'))";

export const SCHEMA = /* sql */ `
CREATE TABLE IF NOT EXISTS an_state (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_terms (
  id INTEGER PRIMARY KEY, field INTEGER NOT NULL, term TEXT NOT NULL, docs INTEGER NOT NULL, occ INTEGER NOT NULL, first INTEGER, last INTEGER,
  views INTEGER, likes INTEGER, comments INTEGER, shares INTEGER, saves INTEGER, engagement INTEGER);
DROP INDEX IF EXISTS an_terms_docs;
CREATE TABLE IF NOT EXISTS an_item_terms (${ITEM_TERMS_COLUMNS}, PRIMARY KEY (field, day, rid)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_daily (
  ff INTEGER NOT NULL, day INTEGER NOT NULL, platform TEXT NOT NULL, kind TEXT NOT NULL, value ANY NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (ff, day, platform, kind, value)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS an_dirty (rid INTEGER PRIMARY KEY, text TEXT, lang TEXT, published_at INTEGER,
  views INTEGER, likes INTEGER, comments INTEGER, shares INTEGER, saves INTEGER);
CREATE TABLE IF NOT EXISTS an_dirty_days (day INTEGER PRIMARY KEY);
CREATE TRIGGER IF NOT EXISTS an_items_changed AFTER UPDATE OF text, lang, published_at, views, likes, comments, shares, saves, labels, platform, kind
  ON items WHEN old.rid <= ${TAKEN} AND (old.text IS NOT new.text OR old.lang IS NOT new.lang
    OR old.published_at IS NOT new.published_at OR old.views IS NOT new.views OR old.likes IS NOT new.likes OR old.comments IS NOT new.comments
    OR old.shares IS NOT new.shares OR old.saves IS NOT new.saves OR old.labels IS NOT new.labels OR old.platform IS NOT new.platform
    OR old.kind IS NOT new.kind)
BEGIN
  INSERT OR IGNORE INTO an_dirty VALUES (old.rid, old.text, old.lang, old.published_at, old.views, old.likes, old.comments, old.shares, old.saves);
  INSERT OR IGNORE INTO an_dirty_days VALUES (${dayOf('old.published_at')});
  INSERT OR IGNORE INTO an_dirty_days VALUES (${dayOf('new.published_at')});
END;
CREATE TRIGGER IF NOT EXISTS an_items_deleted AFTER DELETE ON items WHEN old.rid <= ${TAKEN}
BEGIN
  INSERT OR IGNORE INTO an_dirty VALUES (old.rid, old.text, old.lang, old.published_at, old.views, old.likes, old.comments, old.shares, old.saves);
  INSERT OR IGNORE INTO an_dirty_days VALUES (${dayOf('old.published_at')});
END;
CREATE TRIGGER IF NOT EXISTS an_override_ins AFTER INSERT ON label_overrides BEGIN
  INSERT OR IGNORE INTO an_dirty_days SELECT ${dayOf('published_at')} FROM items WHERE rid = new.item_rid;
END;
CREATE TRIGGER IF NOT EXISTS an_override_upd AFTER UPDATE ON label_overrides BEGIN
  INSERT OR IGNORE INTO an_dirty_days SELECT ${dayOf('published_at')} FROM items WHERE rid = new.item_rid;
END;
CREATE TRIGGER IF NOT EXISTS an_override_del AFTER DELETE ON label_overrides BEGIN
  INSERT OR IGNORE INTO an_dirty_days SELECT ${dayOf('published_at')} FROM items WHERE rid = old.item_rid;
END;
${authorSchema(dayOf)}`;

/**
 * an_terms's two indexes (index version 6: the key is an index of its own, not a UNIQUE
 * constraint, so that a build from scratch can append the rows without them and make them once,
 * sorted, at its end — analysis/bulk-terms.ts): the (field, term) key, and the terms in more
 * than one item by items (a partial index: most terms are in one item).
 */
export const TERM_KEYS: ReadonlyArray<[string, string]> = [
  ['an_terms_key', 'CREATE UNIQUE INDEX IF NOT EXISTS an_terms_key ON an_terms (field, term)'],
  ['an_terms_multi', 'CREATE INDEX IF NOT EXISTS an_terms_multi ON an_terms (field, docs) WHERE docs > 1'],
];

export const DROP = /* sql */ `${AUTHOR_DROP}

DROP TRIGGER IF EXISTS an_items_changed; DROP TRIGGER IF EXISTS an_items_deleted; DROP TRIGGER IF EXISTS an_override_ins; DROP TRIGGER IF EXISTS an_override_upd;
DROP TRIGGER IF EXISTS an_override_del; DROP TABLE IF EXISTS an_terms; DROP TABLE IF EXISTS an_item_terms; DROP TABLE IF EXISTS an_daily; DROP TABLE IF EXISTS an_dirty;
DROP TABLE IF EXISTS an_dirty_days; DROP TABLE IF EXISTS an_state;`;
