import { Counter, Histogram, type Registry } from 'prom-client';

/** Background jobs (src/jobs). */
export function jobMetrics(registry: Registry) {
  return {
    jobRuns: new Counter({
      name: 'clipgate_job_runs_total',
      help: 'Rounds of background jobs, by job and result (ok, failed)',
      labelNames: ['job', 'result'] as const,
      registers: [registry],
    }),
    jobItems: new Counter({
      name: 'clipgate_job_items_total',
      help: 'Items handled by background jobs (rows purged, objects deleted, ...), by job',
      labelNames: ['job'] as const,
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'clipgate_job_duration_seconds',
      help: 'Duration of background job rounds, by job',
      labelNames: ['job'] as const,
      buckets: [0.001, 0.01, 0.1, 1, 10, 60],
      registers: [registry],
    }),
  };
}

export type JobMetrics = ReturnType<typeof jobMetrics>;
