/**
 * The Library's charts of what the filters match (the whole archive query, not only loaded rows):
 * volume over time, the intent and sentiment mixes (in words; "not judged" instead of null), top
 * authors. Loaded when the Library's "Charts of what matches" is first opened (recharts stays out
 * of what the first rows wait for); the archive caches the aggregates.
 */
import type { LibraryQuery } from '../../../shared/query';
import { SeriesChart } from '../components/Charts';
import { useLoupe } from '../queries/hooks';

export function LibraryChartsBody({ query }: { query: LibraryQuery }) {
  const on = { keepPrevious: true } as const;
  const volume = useLoupe('library.volume', { query, bucket: 'day' }, on);
  const intent = useLoupe('library.labelDistribution', { query, family: 'intent', field: 'label' }, on);
  const sentiment = useLoupe('library.labelDistribution', { query, family: 'sentiment', field: 'label' }, on);
  const authors = useLoupe('library.topAuthors', { query, limit: 10 }, on);
  return (
    <div className="charts">
      <SeriesChart title="Items per day" data={volume.data} kind="bar" unit="items" testid="chart-library-volume" height={140} />
      <SeriesChart
        title="Intent mix"
        data={intent.data}
        kind="bar"
        unit="posts"
        label={{ family: 'intent', field: 'label' }}
        height={140}
      />
      <SeriesChart
        title="Sentiment mix (comments)"
        data={sentiment.data}
        kind="bar"
        unit="comments"
        label={{ family: 'sentiment', field: 'label' }}
        height={140}
      />
      <SeriesChart title="Top authors" data={authors.data} kind="bar" unit="items" height={140} />
    </div>
  );
}
