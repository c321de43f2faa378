import type { Migration } from './types';

/**
 * Tag management (issue 27 #7): a tag's colour, one of the names in src/shared/contract-tags.ts
 * (`TAG_COLOURS`), null when none was chosen. Additive: one column; renames, merges and deletes
 * need no schema (the tag's id stays, so every item's tagging keeps its author and time).
 */
export const migration0019: Migration = {
  version: 19,
  name: 'tag-colours',
  up(db) {
    db.exec(`ALTER TABLE tags ADD COLUMN color TEXT`);
  },
};
export default migration0019;
