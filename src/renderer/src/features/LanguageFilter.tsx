/**
 * The Library's language filter (issue 27 #9): tags typed as `en, ja` or `pt-BR` (a tag matches
 * its subtags: `pt` finds `pt-BR`), `und` for items whose language is not known. What is not a
 * tag is said in words and not queried.
 */
import { useState } from 'react';
import { DraftInput } from '../components/DraftInput';
import { Field } from '../components/cells';

const TAG = /^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$/;

/** `en, pt-BR ja` → the tags and what was not one */
export function parseLanguages(text: string): { tags: string[]; bad: string[] } {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  return { tags: [...new Set(parts.filter((p) => TAG.test(p)))], bad: parts.filter((p) => !TAG.test(p)) };
}

export function LanguageFilter({ value, onChange }: { value: string[] | undefined; onChange: (v: string[] | undefined) => void }) {
  const [bad, setBad] = useState<string[]>([]);
  return (
    <Field label="Language">
      <span className="row gap">
        <DraftInput
          value={(value ?? []).join(', ')}
          onCommit={(v) => {
            const p = parseLanguages(v);
            setBad(p.bad);
            onChange(p.tags.length ? p.tags : undefined);
          }}
          placeholder="any (en, ja…)"
          size={9}
          aria-label="Languages"
          title="Language tags, comma-separated: en, ja, pt (also finds pt-BR); und = not known"
          data-testid="library-language"
        />
        {bad.length ? (
          <span className="errtext small" role="alert" data-testid="library-language-problem">
            “{bad.join('”, “')}” is not a language tag: write one like en, ja or pt-BR.
          </span>
        ) : null}
      </span>
    </Field>
  );
}
