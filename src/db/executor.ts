import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** What repositories run on: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

export const bool = (value: number | boolean): boolean => value === true || value === 1;
export const int = (value: boolean): number => (value ? 1 : 0);
/** PostgreSQL returns count(*) as a string (bigint); SQLite as a number. */
export const toCount = (value: string | number | bigint | null | undefined): number => Number(value ?? 0);
