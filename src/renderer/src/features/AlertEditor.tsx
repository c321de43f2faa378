/**
 * A watchlist's alert, set or changed on any list — made here, from a profile, or imported —
 * with the Library's label picker (issue 27 #1): labels, fields and values chosen, not typed as
 * API names. Save sends only `{ alert }` (the rest of the list stays as it is).
 */
import { useState } from 'react';
import type { WatchlistInfo } from '../../../shared/contract';
import type { LabelCondition } from '../../../shared/query';
import { Modal } from '../components/Dialog';
import { runWithToast } from '../components/WayOut';
import { useWatchMutations } from '../queries/watchlists';
import { conditionText } from '../../../shared/alert-words';
import { LabelConditions } from './LabelConditions';

export function AlertEditor({ w }: { w: WatchlistInfo }) {
  const watchlists = useWatchMutations();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<LabelCondition[]>(w.alert ?? []);
  const save = () => {
    setOpen(false);
    void runWithToast(
      () => watchlists.update({ id: w.id, patch: { alert: draft.length ? draft : null } }),
      draft.length ? 'Alert saved' : 'Alert removed',
    );
  };
  return (
    <>
      <span className="muted small" data-testid="watchlist-alert">
        Alert: {w.alert?.length ? conditionText(w.alert) : 'none'}
      </span>
      <button
        type="button"
        className="btn small"
        onClick={() => {
          setDraft(w.alert ?? []);
          setOpen(true);
        }}
        data-testid="watchlist-edit-alert"
      >
        {w.alert?.length ? 'Edit alert…' : 'Set an alert…'}
      </button>
      {open ? (
        <Modal
          title={`Alert for “${w.name}”`}
          detail="A run adds an alert to the inbox when new items match every condition."
          onCancel={() => setOpen(false)}
          testid="alert-dialog"
        >
          <LabelConditions value={draft} onChange={setDraft} />
          <p className="muted small" data-testid="alert-draft">
            {draft.length ? `New items where ${conditionText(draft)}.` : 'No condition: no alert (spikes are still flagged).'}
          </p>
          <div className="row gap">
            <div className="spacer" />
            <button type="button" className="btn" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button" className="btn primary" onClick={save} data-testid="alert-save">
              {draft.length ? 'Save alert' : w.alert?.length ? 'Remove alert' : 'Save'}
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}
