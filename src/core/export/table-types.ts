/** The typed columns of the small tables written beside an export (tables.ts; its Parquet form: table-parquet.ts). */
export type ColumnType = 'text' | 'int' | 'time' | 'json' | 'bool';
export interface TableColumn {
  name: string;
  type: ColumnType;
}
export interface Table {
  columns: readonly TableColumn[];
  /** rows as value arrays in column order; times as ms since 1970; null = empty */
  rows: Iterable<unknown[]>;
}
