/**
 * The one helper of the column lists: a column whose rows hold T. Only its type is read (the row
 * types are `typeof` each list); the value is a stand-in, and only the lists' keys are used at
 * run time (COLUMNS, types.ts).
 */
export const col = <T>(): T => undefined as T;
