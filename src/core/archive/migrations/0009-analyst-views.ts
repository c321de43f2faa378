import type { Migration } from './types';
import { createViews } from '../views';

/**
 * Views for analysts' own tools (issue 16): `items_view` (ISO 8601 dates, tags, note),
 * `labels_wide` (one column per label field of the spec, effective values) and `labels_long`
 * (every label field held). Defined in ../views.ts; views only, no data is written.
 */
export const migration0009: Migration = {
  version: 9,
  name: 'analyst-views',
  up(db) {
    createViews(db);
  },
};
export default migration0009;
