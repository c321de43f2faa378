import type { Migration } from './types';

/**
 * The Library's thread filter (issue 27 #12: "comments of post X"): the comments and replies under a
 * post are found by walking `parent_id` down from it, one index lookup per level. Additive: a partial
 * index over the items that have a parent (comments and replies; posts are left out of it).
 */
export const migration0021: Migration = {
  version: 21,
  name: 'item-parents',
  up(db) {
    db.exec(`CREATE INDEX items_parent ON items (platform, parent_id) WHERE parent_id IS NOT NULL`);
  },
};
export default migration0021;
