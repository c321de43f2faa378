/**
 * The Library's Source filter (issue 27 #4): a watchlist is picked by its name from a list; a
 * walk, a call or a source name is typed. Nothing is queried until one is chosen or typed, so
 * choosing "watchlist" never sends a query with an empty id (which the query's own check refused,
 * in the service's words, for a question that never leaves this computer).
 */
import { useEffect, useState } from 'react';
import type { SourceFilter } from '../../../shared/query';
import { useLoupe } from '../queries/hooks';
import { DraftInput } from '../components/DraftInput';

type SourceType = SourceFilter['type'];
const TYPES: Array<[SourceType, string]> = [
  ['watchlist', 'a watchlist'],
  ['walk', 'a walk (its id)'],
  ['call', 'a call (its id)'],
  ['source', 'a source name (search, cli…)'],
];
const PLACEHOLDER: Record<Exclude<SourceType, 'watchlist'>, string> = { walk: 'walk id', call: 'call id', source: 'e.g. search' };

export function LibrarySource({ value, onChange }: { value: SourceFilter | undefined; onChange: (v: SourceFilter | undefined) => void }) {
  const [type, setType] = useState<SourceType | ''>(value?.type ?? '');
  // the query changed elsewhere (Clear, a saved set, a hand-off): follow it
  useEffect(() => {
    if (value) setType(value.type);
  }, [value]);
  const lists = useLoupe('watchlists.list', {}, { enabled: type === 'watchlist' });
  const choose = (t: SourceType | '') => {
    setType(t);
    // a new kind of source has no id yet: no source filter until one is chosen
    if (value) onChange(undefined);
  };
  const known = type === 'watchlist' && value?.type === 'watchlist' ? (lists.data ?? []).some((l) => l.id === value.id) : true;
  return (
    <span className="row gap" data-testid="library-source">
      <select
        value={type}
        onChange={(e) => choose(e.target.value as SourceType | '')}
        aria-label="Source kind"
        data-testid="library-source-type"
      >
        <option value="">any</option>
        {TYPES.map(([t, words]) => (
          <option key={t} value={t}>
            {words}
          </option>
        ))}
      </select>
      {type === 'watchlist' ? (
        <select
          value={value?.type === 'watchlist' ? value.id : ''}
          onChange={(e) => onChange(e.target.value ? { type: 'watchlist', id: e.target.value } : undefined)}
          aria-label="Watchlist"
          data-testid="library-source-watchlist"
        >
          <option value="">{lists.data && lists.data.length === 0 ? 'no watchlists yet' : 'choose a watchlist…'}</option>
          {!known && value ? <option value={value.id}>a watchlist no longer here</option> : null}
          {(lists.data ?? []).map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      ) : type !== '' ? (
        <DraftInput
          value={value?.type === type ? value.id : ''}
          onCommit={(v) => onChange(v.trim() ? { type, id: v.trim() } : undefined)}
          placeholder={PLACEHOLDER[type]}
          size={12}
          aria-label={`Source: ${PLACEHOLDER[type]}`}
        />
      ) : null}
    </span>
  );
}
