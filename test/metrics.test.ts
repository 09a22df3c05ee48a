import { describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.ts';

describe('createMetrics', () => {
  it("keeps the process's own figures out of a registry made without them, and the service's in", async () => {
    const served = createMetrics();
    const unserved = createMetrics({ processMetrics: false });
    expect(served.registry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(served.registry.getSingleMetric('process_cpu_seconds_total')).toBeDefined();
    expect(unserved.registry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeUndefined();
    expect(unserved.registry.getSingleMetric('process_cpu_seconds_total')).toBeUndefined();
    const own = (await served.registry.getMetricsAsJSON())
      .map((m) => m.name)
      .filter((name) => !name.startsWith('nodejs_') && !name.startsWith('process_'));
    expect(own.length).toBeGreaterThan(0);
    expect((await unserved.registry.getMetricsAsJSON()).map((m) => m.name).sort()).toEqual(
      own.sort(),
    );
  });
});
