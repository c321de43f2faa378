import type { Migration } from './types';

/**
 * E-mail delivery of alerts (issue 27 #1): each inbox row says whether it is to be e-mailed and
 * how that went — `email_state` null (not for e-mail: none was configured when it was raised),
 * `pending`, `sending` (claimed by a process at `email_at`), `sent` or `failed` (with
 * `email_error`, the cause in words, retried on the next run) — and keeps the items it names
 * (`items_json`: up to 20 ids and snippets) so a retry days later sends the same message.
 * Additive: columns only.
 */
const SQL = /* sql */ `
ALTER TABLE watch_alerts ADD COLUMN email_state TEXT CHECK (email_state IN ('pending', 'sending', 'sent', 'failed'));
ALTER TABLE watch_alerts ADD COLUMN email_error TEXT;
ALTER TABLE watch_alerts ADD COLUMN email_tries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE watch_alerts ADD COLUMN email_at INTEGER;
ALTER TABLE watch_alerts ADD COLUMN items_json TEXT;
CREATE INDEX watch_alerts_email ON watch_alerts (email_state) WHERE email_state IS NOT NULL;
`;

export const migration0022: Migration = {
  version: 22,
  name: 'alert-email',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0022;
