/**
 * Activities per hour over the last 24 hours of the selected accessory (or of all of them), as
 * bars: a live query of `viewer.activityCounts` (the server sends it again when an activity
 * commits), in the browser's time zone, so that each bar is one hour on the viewer's clock (a
 * day with a clock change has 23 or 25 of them; the strip shows the last 24).
 */
import { ApiError } from './api.ts';
import { HourlyCounts } from './documents.ts';
import { h } from './dom.ts';
import type { DashHourlyCountsQuery } from './generated/graphql.ts';
import { LiveQuery } from './live.ts';

const HOUR = 3_600_000;
const HOURS = 24;
/** The strip's height (styles.css, .counts). */
const BAR_PX = 40;

export class HourlyChart {
  readonly #live: LiveQuery<DashHourlyCountsQuery>;
  /** Where the strip begins. */
  #from = 0;
  /** When the strip moves on by an hour. */
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly container: HTMLElement,
    onError: (err: unknown) => void,
  ) {
    this.#live = new LiveQuery<DashHourlyCountsQuery>({
      document: HourlyCounts,
      onData: ({ viewer }) =>
        this.#render(
          new Map(
            viewer.activityCounts.buckets.map((b) => [
              new Date(b.start as string).getTime(),
              b.count,
            ]),
          ),
        ),
      onErrors: ([first]) =>
        onError(
          new ApiError(first!.message, first!.extensions?.code, first!.extensions?.details?.field),
        ),
      // The timeline's live events say so already.
      refused: () => undefined,
    });
  }

  /** Shows the counts of these accessories (null: all) up to the current hour, as they change. */
  show(accessoryIds: string[] | null): void {
    clearTimeout(this.#timer);
    const end = new Date();
    end.setMinutes(60, 0, 0); // the start of the next hour, on the local clock
    const from = new Date(end.getTime() - HOURS * HOUR);
    this.#from = from.getTime();
    this.#live.start({
      accessoryIds,
      from: from.toISOString(),
      to: end.toISOString(),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    // The next hour's strip is another query.
    this.#timer = setTimeout(() => this.show(accessoryIds), end.getTime() - Date.now());
  }

  #render(counts: Map<number, number>): void {
    const hours = Array.from({ length: HOURS }, (_, i) => this.#from + i * HOUR);
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
