import { useState } from 'react';
import type { Target } from '../../../shared/contract';
import { useLoupe } from '../queries/hooks';
import { useWatchThis } from './watch';
import { WatchlistDialog } from './WatchlistDialog';

/** A small menu: add to an existing watchlist or create one (nothing is spent until a run). */
export function WatchButton({ target, label }: { target: Target | null; label: string }) {
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const lists = useLoupe('watchlists.list', {}, { enabled: open });
  const watch = useWatchThis();
  return (
    <div className="menu-anchor">
      <button
        className="btn"
        disabled={!target}
        onClick={() => setOpen(!open)}
        data-testid="watch-this"
        title="Add to a watchlist (free until it runs)"
      >
        Watch this ▾
      </button>
      {open && target ? (
        <div className="popover right" onMouseLeave={() => setOpen(false)}>
          <button
            className="btn small ghost"
            data-testid="watch-new"
            onClick={() => {
              setOpen(false);
              setCreating(true);
            }}
          >
            + New watchlist “{label.slice(0, 40)}”…
          </button>
          {(lists.data ?? []).map((w) => (
            <button
              key={w.id}
              className="btn small ghost"
              onClick={() => {
                setOpen(false);
                void watch(target, label, w.id);
              }}
            >
              Add to {w.name}
            </button>
          ))}
        </div>
      ) : null}
      {creating && target ? (
        <WatchlistDialog
          title={`Watch ${label.slice(0, 60)}`}
          okLabel="Create watchlist (free)"
          initial={{ name: label.slice(0, 120), everyHours: 24, budgetPerRun: null, budgetPerMonth: null, firstRunPages: 1, since: null }}
          target={target}
          onCancel={() => setCreating(false)}
          onSubmit={(f) => {
            setCreating(false);
            void watch(target, label, null, f);
          }}
        />
      ) : null}
    </div>
  );
}
