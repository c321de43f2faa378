/**
 * A select's option groups for the saved result sets (`set:<id>`) and the watchlists
 * (`watchlist:<id>`); a group only when it has any. Used by the Analysis scope and Compare's picker.
 */
interface Named {
  id: string;
  name: string;
}

export function SourceOptions({ sets, lists, listsLabel }: { sets: Named[] | undefined; lists: Named[] | undefined; listsLabel: string }) {
  return (
    <>
      {(sets ?? []).length ? (
        <optgroup label="Saved result sets">
          {(sets ?? []).map((s) => (
            <option key={s.id} value={`set:${s.id}`}>
              {s.name}
            </option>
          ))}
        </optgroup>
      ) : null}
      {(lists ?? []).length ? (
        <optgroup label={listsLabel}>
          {(lists ?? []).map((w) => (
            <option key={w.id} value={`watchlist:${w.id}`}>
              {w.name}
            </option>
          ))}
        </optgroup>
      ) : null}
    </>
  );
}
