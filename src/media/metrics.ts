import { Counter, Gauge, type Registry } from 'prom-client';

/** Clip exports (src/media/export.ts): what was refused or cut, and the slots in use. */
export function exportMetrics(registry: Registry) {
  return {
    exportRefusals: new Counter({
      name: 'clipgate_export_refusals_total',
      help: 'Exports refused, by reason: busy (every slot of the instance taken), account_busy (the account holds its EXPORT_CONCURRENCY_PER_ACCOUNT), url_rate_limited (EXPORT_URL_RATE_PER_MINUTE), too_large (EXPORT_MAX_BYTES), no_ffmpeg',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    exportCuts: new Counter({
      name: 'clipgate_export_cuts_total',
      help: 'Exports ended before their last byte, by reason: slow_reader (EXPORT_MIN_READ_BYTES_PER_S), idle (nothing read for 60 s), deadline (EXPORT_TIMEOUT_S), failed (ffmpeg failed), shutdown',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    exportSlots: new Gauge({
      name: 'clipgate_export_slots_in_use',
      help: 'Exports running on this instance (at most EXPORT_CONCURRENCY)',
      registers: [registry],
    }),
  };
}

export type ExportMetrics = ReturnType<typeof exportMetrics>;
