export type Habit = 'as-unknown-as' | 'non-null' | 'raw-sql';
export type HabitCounts = Partial<Record<Habit, number>>;
export const HABITS: Record<Habit, string>;
export function habitsOf(fileName: string, text: string): HabitCounts;
export function checkHabits(
  byFile: Map<string, HabitCounts>,
  allowlist: Record<string, HabitCounts>,
): { problems: string[]; shrunk: Array<{ file: string; habit: Habit; count: number; ceiling: number }>; totals: Record<Habit, number> };
export function loweredHabits(allowlist: Record<string, HabitCounts>, byFile: Map<string, HabitCounts>): Record<string, HabitCounts>;
