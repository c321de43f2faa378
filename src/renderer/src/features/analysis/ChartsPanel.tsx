/**
 * Library charts (analysis.volumeBy, analysis.labelShare, analysis.engagementDistribution):
 * volume over time by network, label value or tag; a label's value shares over time; how one
 * engagement count is distributed. Every bar opens the Library on exactly its items.
 */
import { useState } from 'react';
import type { ChartBucket } from '../../../../shared/analysis';
import { LABEL_SPECS, labelFieldSpec } from '../../../../shared/labels';
import type { EngagementField, LibraryQuery } from '../../../../shared/query';
import { ErrorBox, Field } from '../../components/cells';
import { bucketWords } from '../../lib/words';
import { useLoupe } from '../../queries/hooks';
import { MarkChart } from './MarkChart';

const BUCKETS: Array<[ChartBucket, string]> = [
  ['day', 'days'],
  ['week', 'weeks (from Monday)'],
  ['month', 'months'],
];
const COUNTS: Array<[EngagementField, string]> = [
  ['likes', 'likes'],
  ['views', 'views'],
  ['comments', 'comments'],
  ['shares', 'shares'],
  ['saves', 'saves'],
];
/** every label field the spec names, in words ("Intent: intent"), the API name on hover */
const LABEL_FIELDS = Object.entries(LABEL_SPECS).flatMap(([family, spec]) =>
  Object.entries(spec.fields).map(([field, f]) => ({ value: `${family}.${field}`, words: `${spec.title}: ${f.title}` })),
);

function split(v: string): { family: string; field: string } {
  const i = v.indexOf('.');
  return { family: v.slice(0, i), field: v.slice(i + 1) };
}

function LabelFieldSelect({
  value,
  onChange,
  testid,
  label = 'Label',
}: {
  value: string;
  onChange: (v: string) => void;
  testid: string;
  label?: string;
}) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testid}>
        {LABEL_FIELDS.map((f) => (
          <option key={f.value} value={f.value} title={f.value}>
            {f.words}
          </option>
        ))}
      </select>
    </Field>
  );
}

function BucketSelect({ value, onChange, testid }: { value: ChartBucket; onChange: (b: ChartBucket) => void; testid: string }) {
  return (
    <Field label="Per">
      <select value={value} onChange={(e) => onChange(e.target.value as ChartBucket)} data-testid={testid}>
        {BUCKETS.map(([b, w]) => (
          <option key={b} value={b}>
            {w}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function ChartsPanel({ query }: { query: LibraryQuery }) {
  const [by, setBy] = useState<'platform' | 'label' | 'tag'>('platform');
  const [volLabel, setVolLabel] = useState('intent.label');
  const [bucket, setBucket] = useState<ChartBucket>('week');
  const [shareLabel, setShareLabel] = useState('intent.label');
  const [shareBucket, setShareBucket] = useState<ChartBucket>('month');
  const [count, setCount] = useState<EngagementField>('likes');
  const vl = split(volLabel);
  const sl = split(shareLabel);
  const volume = useLoupe(
    'analysis.volumeBy',
    { query, bucket, by, ...(by === 'label' ? vl : {}) },
    { keepPrevious: true, staleTime: 30_000 },
  );
  const share = useLoupe('analysis.labelShare', { query, bucket: shareBucket, ...sl }, { keepPrevious: true, staleTime: 30_000 });
  const dist = useLoupe('analysis.engagementDistribution', { query, field: count }, { keepPrevious: true, staleTime: 30_000 });
  const labelWords = (l: { family: string; field: string }) => (k: string) => bucketWords(k, l);
  const fieldTitle = (l: { family: string; field: string }) =>
    `${LABEL_SPECS[l.family]?.title ?? l.family}: ${labelFieldSpec(l.family, l.field)?.title ?? l.field}`;
  return (
    <div className="analysis-charts">
      <section className="panel" aria-labelledby="chart-volume-title">
        <div className="row gap wrap">
          <h2 id="chart-volume-title" className="panel-title">
            Volume over time
          </h2>
          <Field label="By">
            <select value={by} onChange={(e) => setBy(e.target.value as typeof by)} data-testid="volume-by">
              <option value="platform">network</option>
              <option value="label">label value</option>
              <option value="tag">your tags</option>
            </select>
          </Field>
          {by === 'label' ? <LabelFieldSelect value={volLabel} onChange={setVolLabel} testid="volume-label" /> : null}
          <BucketSelect value={bucket} onChange={setBucket} testid="volume-bucket" />
        </div>
        <ErrorBox error={volume.error} onRetry={() => void volume.refetch()} />
        <MarkChart
          title={`Items per ${bucket} by ${by === 'platform' ? 'network' : by === 'tag' ? 'tag' : fieldTitle(vl)}${by === 'label' ? ' (unsure values not drawn)' : ''}`}
          data={volume.data}
          keyWords={by === 'label' ? labelWords(vl) : undefined}
          testid="chart-volume-by"
          bucketTitle={bucket === 'month' ? 'Month' : bucket === 'week' ? 'Week of' : 'Day'}
        />
      </section>
      <section className="panel" aria-labelledby="chart-share-title">
        <div className="row gap wrap">
          <h2 id="chart-share-title" className="panel-title">
            Label share over time
          </h2>
          <LabelFieldSelect value={shareLabel} onChange={setShareLabel} testid="share-label" />
          <BucketSelect value={shareBucket} onChange={setShareBucket} testid="share-bucket" />
        </div>
        <ErrorBox error={share.error} onRetry={() => void share.refetch()} />
        <MarkChart
          title={`${fieldTitle(sl)}: share of the items judged, per ${shareBucket}`}
          data={share.data}
          keyWords={labelWords(sl)}
          measure="share"
          testid="chart-label-share"
          bucketTitle={shareBucket === 'month' ? 'Month' : shareBucket === 'week' ? 'Week of' : 'Day'}
        />
      </section>
      <section className="panel" aria-labelledby="chart-dist-title">
        <div className="row gap wrap">
          <h2 id="chart-dist-title" className="panel-title">
            Engagement distribution
          </h2>
          <Field label="Count">
            <select value={count} onChange={(e) => setCount(e.target.value as EngagementField)} data-testid="dist-field">
              {COUNTS.map(([f, w]) => (
                <option key={f} value={f}>
                  {w}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <ErrorBox error={dist.error} onRetry={() => void dist.refetch()} />
        <MarkChart
          title={`Items by number of ${count} (unknown counts left out)`}
          data={dist.data}
          keyWords={() => `items by ${count}`}
          stacked={false}
          testid="chart-engagement-dist"
          bucketTitle={`Number of ${count}`}
        />
      </section>
    </div>
  );
}
