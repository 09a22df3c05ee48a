/**
 * Activities per hour over the last 24 hours of the selected accessory, as bars: from
 * `viewer.activityCounts`, in the browser's time zone, so that each bar is one hour on the
 * viewer's clock (a day with a clock change has 23 or 25 of them; the strip shows the last 24).
 */
import { request } from './api.ts';
import { HourlyCounts } from './documents.ts';
import { h } from './dom.ts';

const HOUR = 3_600_000;
const HOURS = 24;
/** The strip's height (styles.css, .counts). */
const BAR_PX = 40;

export class HourlyChart {
  #generation = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly container: HTMLElement,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Loads the counts of `accessoryId` now. */
  async load(accessoryId: string): Promise<void> {
    clearTimeout(this.#timer);
    const generation = ++this.#generation;
    const end = new Date();
    end.setMinutes(60, 0, 0); // the start of the next hour, on the local clock
    const from = new Date(end.getTime() - HOURS * HOUR);
    try {
      const { viewer } = await request(HourlyCounts, {
        accessoryId,
        from: from.toISOString(),
        to: end.toISOString(),
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      });
      if (generation !== this.#generation) return;
      const counts = new Map(
        viewer.activityCounts.buckets.map((b) => [new Date(b.start as string).getTime(), b.count]),
      );
      this.#render(from.getTime(), counts);
    } catch (err) {
      if (generation === this.#generation) this.onError(err);
    }
  }

  /** Loads again in a moment: live events come in bursts. */
  refreshSoon(accessoryId: string): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.load(accessoryId), 1000);
  }

  #render(from: number, counts: Map<number, number>): void {
    const hours = Array.from({ length: HOURS }, (_, i) => from + i * HOUR);
    const max = Math.max(1, ...hours.map((t) => counts.get(t) ?? 0));
    this.container.replaceChildren(
      ...hours.map((t) => {
        const count = counts.get(t) ?? 0;
        const label = `${new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}: ${count}`;
        const bar = h('span', { class: 'hour', title: label, 'data-count': String(count) });
        bar.style.height = `${Math.max(1, Math.round((count / max) * BAR_PX))}px`;
        return bar;
      }),
    );
  }
}
