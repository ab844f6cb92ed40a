// A batch's keys as an index condition (README "The write path": a batch reads only the rows it
// names): a statement that joins a batch's rows to a table also names their keys as `= ANY($n)`,
// each column's values once. Before Postgres 17 an index condition on two arrays is their product
// (800 identical accounts times 800 addresses), and the planner (Debian's Postgres 15) scans instead.

/** Each value once, in first-seen order: one column's array for an `= ANY` index condition. */
export const eachOnce = <T>(values: Iterable<T>): T[] => [...new Set(values)];
