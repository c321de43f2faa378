/**
 * Every schema migration, in order. Append new ones (0002-watchlists.ts, ...) here;
 * versions must run 1..N without gaps. The runner is in ../db.ts.
 */
import type { Migration } from './types';
import { migration0001 } from './0001-init';
import { migration0002 } from './0002-watchlists';
import { migration0003 } from './0003-chart-indexes';
import { migration0004 } from './0004-label-field-ids';
import { migration0005 } from './0005-walk-owner';
import { migration0006 } from './0006-comment-kinds';
import { migration0007 } from './0007-key-names';
import { migration0008 } from './0008-fts-declared';
import { migration0009 } from './0009-analyst-views';
import { migration0010 } from './0010-display-columns';
import { migration0011 } from './0011-covering-counts';
import { migration0012 } from './0012-spaceless-texts';
import { migration0013 } from './0013-datasets';
import { migration0014 } from './0014-collect-plans';
import { migration0015 } from './0015-walk-restarts';
import { migration0016 } from './0016-journal-attribution';
import { migration0017 } from './0017-watch-alerts';
import { migration0018 } from './0018-archive-serves';
import { migration0019 } from './0019-tag-colours';
import { migration0020 } from './0020-journal-loss-reading';
import { migration0021 } from './0021-item-parents';
import { migration0022 } from './0022-alert-email';
import { migration0023 } from './0023-journal-free-call';
import { migration0024 } from './0024-rehydrations';
import { migration0025 } from './0025-collect-run-ledger-mark';
import { migration0026 } from './0026-journal-free-left';

export type { Migration, MigrationReport } from './types';

export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0017,
  migration0018,
  migration0019,
  migration0020,
  migration0021,
  migration0022,
  migration0023,
  migration0024,
  migration0025,
  migration0026,
];
