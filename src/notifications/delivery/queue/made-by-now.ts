/**
 * The rows of `deliveries` made by now. A delivery's row is made when it is queued (`created_at`
 * defaults to now()), so none lies in the day partitions made ahead of time (a week of them, and
 * the guard partition above them: storage/partitions.ts). A statement that bounds each of its
 * reads of `deliveries` by this skips those partitions as it starts (run-time partition pruning,
 * which a generic plan keeps) instead of opening and probing each of them: a claim costs about a
 * quarter less (decision 0168). The hour's margin covers `created_at`'s rounding to the
 * millisecond, and a clock set back by less than an hour; rows made before a larger step back
 * wait until the clock has passed them again.
 */
export const madeByNow = (alias?: string): string =>
  `${alias ? `${alias}.` : ''}created_at < now() + interval '1 hour'`;
