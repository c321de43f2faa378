import type { Migration } from './types';
import { rekindStoredComments } from '../comment-kinds';

/**
 * Comments that an archive written before issue 14 #3 was fixed holds as kind `post` (or
 * `reply`) become kind `comment`, decided by the fixed extraction reading the stored answers
 * again (../comment-kinds.ts). A data rewrite in its own step; no schema change. An archive
 * without such answers (none stored, or no comment in them) costs one query over `responses`.
 */
export const migration0006: Migration = {
  version: 6,
  name: 'comment-kinds',
  up(db) {
    rekindStoredComments(db);
  },
};
export default migration0006;
