/** Days in the archive's SQL: items are bucketed by the UTC day of their publication. */
export const DAY_MS = 86_400_000;

/** SQL: the UTC day number of i.published_at (floor division, correct before 1970). */
export const DAY_SQL = `((i.published_at - ((i.published_at % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS}) / ${DAY_MS})`;
