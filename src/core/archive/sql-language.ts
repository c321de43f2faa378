/**
 * The library query's language condition (issue 27 #9) as SQL over `items.lang`: a tag matches
 * itself and its subtags, case and `_` / `-` ignored (`pt` → `pt`, `pt-BR`, `pt_PT`); `und`
 * matches items whose language is not known (null, empty or `und`). Any of the tags.
 */
export function languageCondition(langs: readonly string[]): { sql: string; params: string[] } {
  const ors: string[] = [];
  const params: string[] = [];
  for (const raw of langs) {
    const l = raw.trim().toLowerCase().replace(/_/g, '-');
    if (l === 'und') ors.push("i.lang IS NULL OR i.lang = '' OR lower(i.lang) = 'und'");
    else {
      // the query schema lets only letters, digits, `-` and `_` (made `-`) through: nothing LIKE reads as a wildcard
      ors.push("lower(replace(i.lang, '_', '-')) = ? OR lower(replace(i.lang, '_', '-')) LIKE ?");
      params.push(l, `${l}-%`);
    }
  }
  return { sql: `(${ors.join(' OR ')})`, params };
}
