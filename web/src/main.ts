/**
 * The clipgate dashboard: accessories, an infinitely scrolling activity timeline (of one
 * accessory, or of all the account's) with live updates over graphql-ws, the selected activity's
 * media with its zones, the notification delivery log, and where notifications go (a form that
 * registers a webhook or a broker destination). The token comes from the URL fragment
 * (`#token=...`), never sent to the server, and leaves the address bar at once (kept in
 * sessionStorage for reloads), or from the form.
 */
import { ApiError, request, setToken } from './api.ts';
import {
  Accessories,
  AccessoryEvents,
  AccountActivityEvents,
  Activities,
  ExportUrl,
  EnableReceiver,
  Notifications,
  OneActivity,
  ReceiverEvents,
  Redeliver,
  Timeline,
  Viewer,
  Zones,
} from './documents.ts';
import { DestinationForm, destinationLine } from './destination.ts';
import { $, formatDuration, formatTime, h } from './dom.ts';
import type {
  ActivityWhere,
  DashAccessoriesQuery,
  DashActivityFragment,
  DashAccessoryEventsSubscription,
  DashAccountActivityEventsSubscription,
  DashReceiverEventsSubscription,
} from './generated/graphql.ts';
import { HourlyChart } from './counts.ts';
import { ResumingSubscription } from './live.ts';
import { ZoneEditor } from './zones.ts';
import './styles.css';

type Activity = DashActivityFragment;
type LiveEvent = DashAccessoryEventsSubscription['accessoryEvents'];
type AccountLiveEvent = DashAccountActivityEventsSubscription['accountEvents'];

const PAGE = 20;

/**
 * A row's key: activity ids are an accessory's own, so the all-cameras timeline needs both. Keys
 * order as the timeline does (newest first; one second's activities by accessory id).
 */
const keyOf = (a: { activityId: string; accessoryId: string }) =>
  `${a.activityId}:${a.accessoryId}`;

const state = {
  accountId: null as string | null,
  /** The timeline's accessory; null: all of the account's; undefined: none chosen yet. */
  accessoryId: undefined as string | null | undefined,
  filter: '',
  where: undefined as ActivityWhere | undefined,
  /** Bumped whenever the accessory or the filter changes: late answers of the old one are dropped. */
  generation: 0,
  cursor: undefined as string | undefined,
  hasMore: true,
  loading: false,
  /** By row key (keyOf). */
  activities: new Map<string, Activity>(),
  rows: new Map<string, HTMLLIElement>(),
  selected: undefined as string | undefined,
};

const list = $<HTMLOListElement>('activity-list');
const listStatus = $<HTMLParagraphElement>('list-status');
const scroller = $<HTMLDivElement>('scroller');
const zones = new ZoneEditor();
const chart = new HourlyChart($('counts'), (err) => showError(`Counts: ${describe(err)}`));

function showError(message: string | undefined): void {
  const el = $<HTMLParagraphElement>('error');
  el.textContent = message ?? '';
  el.hidden = !message;
}

function describe(err: unknown): string {
  return err instanceof ApiError
    ? err.describe()
    : err instanceof Error
      ? err.message
      : String(err);
}

// ---- start ------------------------------------------------------------------------------------

const TOKEN_KEY = 'clipgate-token';

/**
 * The token: taken once from the URL fragment (`#token=...`, never sent to the server), then
 * from this tab's sessionStorage. The fragment is dropped from the address bar and from this
 * history entry at once (history.replaceState), so the token does not stay in the tab's history,
 * a bookmark or a screenshot of the page; a reload finds it in sessionStorage.
 */
function takeToken(): string | undefined {
  const params = new URLSearchParams(location.hash.slice(1));
  const fromFragment = params.get('token');
  if (fromFragment !== null) {
    params.delete('token');
    const rest = params.toString();
    const url = `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`;
    history.replaceState(history.state, '', url);
    if (fromFragment) sessionStorage.setItem(TOKEN_KEY, fromFragment);
  }
  return fromFragment || sessionStorage.getItem(TOKEN_KEY) || undefined;
}

async function start(token: string): Promise<void> {
  setToken(token);
  sessionStorage.setItem(TOKEN_KEY, token);
  $('token-gate').hidden = true;
  try {
    const { viewer } = await request(Viewer, {});
    state.accountId = viewer.accountId ?? null;
    $('who').textContent = `${viewer.clientId}${viewer.accountId ? '' : ' (no account yet)'}`;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') {
      sessionStorage.removeItem(TOKEN_KEY);
      $('token-gate').hidden = false;
    }
    showError(`Cannot load the dashboard: ${describe(err)}`);
    return;
  }
  $('main').hidden = false;
  if (state.accountId) receiverEvents.start(state.accountId);
  void loadNotifications();
  await loadAccessories();
}

async function loadAccessories(): Promise<void> {
  const ul = $<HTMLUListElement>('accessory-list');
  const all: { id: string; name: string; deviceId: string }[] = [];
  let after: string | null = null;
  try {
    for (;;) {
      const { accessories }: DashAccessoriesQuery = await request(Accessories, { after });
      all.push(...accessories.edges.map((e) => e.node));
      if (!accessories.pageInfo.hasNextPage) break;
      after = accessories.pageInfo.endCursor ?? null;
    }
  } catch (err) {
    showError(`Accessories: ${describe(err)}`);
    return;
  }
  if (all.length === 0) {
    ul.replaceChildren(
      h('li', { class: 'hint', text: 'No accessories yet: start the simulator.' }),
    );
    return;
  }
  for (const a of all) accessoryNames.set(a.id, a.name);
  const everyone = h(
    'button',
    { type: 'button', class: 'accessory', 'data-accessory': '', 'aria-pressed': 'false' },
    h('span', { class: 'name', text: 'All cameras' }),
    h('span', { class: 'device', text: 'one timeline, newest first' }),
  );
  everyone.addEventListener('click', () => selectAccessory(null));
  ul.replaceChildren(
    h('li', {}, everyone),
    ...all.map((a) => {
      const button = h(
        'button',
        { type: 'button', class: 'accessory', 'data-accessory': a.id, 'aria-pressed': 'false' },
        h('span', { class: 'name', text: a.name }),
        h('span', { class: 'device', text: a.deviceId }),
        h('span', { class: 'motion', 'aria-label': 'motion', hidden: true, text: 'motion' }),
      );
      button.addEventListener('click', () => selectAccessory(a.id));
      return h('li', {}, button);
    }),
  );
  selectAccessory(all[0]!.id);
}

/** Shows one accessory's timeline, or (null) the timeline of all the account's accessories. */
function selectAccessory(id: string | null): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-accessory]')) {
    b.setAttribute('aria-pressed', String(b.dataset.accessory === (id ?? '')));
  }
  state.accessoryId = id;
  state.selected = undefined;
  renderDetail(undefined);
  if (id === null) {
    live.stop();
    accountLive.start(state.accountId!);
    zonesFor = undefined;
    zones.clear();
  } else {
    accountLive.stop();
    live.start(id);
    void loadZones(id);
  }
  chart.show(id === null ? null : [id]);
  resetTimeline();
}

/** The accessory whose zones are being loaded, or are shown. */
let zonesFor: string | undefined;
async function loadZones(accessoryId: string): Promise<void> {
  zonesFor = accessoryId;
  try {
    const { accessory } = await request(Zones, { accessoryId });
    if (accessory && accessory.id === zonesFor) {
      zones.load(accessory.id, accessory.zones.zones);
    }
  } catch (err) {
    showError(`Zones: ${describe(err)}`);
  }
}

// ---- timeline ---------------------------------------------------------------------------------

function resetTimeline(): void {
  state.generation++;
  state.cursor = undefined;
  state.hasMore = true;
  state.loading = false;
  state.activities.clear();
  state.rows.clear();
  list.replaceChildren();
  scroller.scrollTop = 0;
  void loadPage();
}

async function loadPage(): Promise<void> {
  const accessoryId = state.accessoryId;
  if (accessoryId === undefined || state.loading || !state.hasMore) return;
  const generation = state.generation;
  state.loading = true;
  listStatus.textContent = 'Loading…';
  try {
    const variables = {
      first: PAGE,
      after: state.cursor ?? null,
      filter: state.filter || null,
      where: state.where ?? null,
    };
    const page =
      accessoryId === null
        ? (await request(Timeline, variables)).viewer.activities
        : (await request(Activities, { accessoryId, ...variables })).accessory?.activities;
    if (generation !== state.generation) return;
    for (const edge of page?.edges ?? []) upsert(edge.node);
    state.cursor = page?.pageInfo.endCursor ?? state.cursor;
    state.hasMore = page?.pageInfo.hasNextPage ?? false;
    $('filter-error').hidden = true;
    listStatus.textContent = state.hasMore
      ? ''
      : state.activities.size === 0
        ? 'No activities.'
        : 'No older activities.';
  } catch (err) {
    if (generation !== state.generation) return;
    state.hasMore = false;
    listStatus.textContent = '';
    const el = $('filter-error');
    el.textContent = describe(err);
    el.hidden = false;
  } finally {
    if (generation === state.generation) state.loading = false;
  }
  if (generation === state.generation) recheckSentinel();
}

// Loads the next page when the end of the list scrolls into view.
const observer = new IntersectionObserver(
  (entries) => {
    if (entries.some((e) => e.isIntersecting)) void loadPage();
  },
  { root: scroller, rootMargin: '0px 0px 300px 0px' },
);
const sentinel = $<HTMLDivElement>('sentinel');
observer.observe(sentinel);
function recheckSentinel(): void {
  // The observer only reports changes: re-observing reports the current state again.
  observer.unobserve(sentinel);
  observer.observe(sentinel);
}

function upsert(activity: Activity): void {
  const key = keyOf(activity);
  state.activities.set(key, activity);
  const row = renderRow(activity);
  const old = state.rows.get(key);
  state.rows.set(key, row);
  if (old) {
    old.replaceWith(row);
  } else {
    // Newest first: before the first row with a smaller key.
    const next = [...state.rows.entries()]
      .filter(([other]) => other < key)
      .sort(([a], [b]) => (a < b ? 1 : -1))[0];
    const before = next?.[1];
    if (before && before.isConnected) list.insertBefore(row, before);
    else list.append(row);
  }
  if (state.selected === key) renderDetail(activity);
}

function remove(key: string): void {
  state.activities.delete(key);
  state.rows.get(key)?.remove();
  state.rows.delete(key);
}

/** Accessory names by id, for the rows of the all-cameras timeline. */
const accessoryNames = new Map<string, string>();

function renderRow(a: Activity): HTMLLIElement {
  const key = keyOf(a);
  const thumb = a.media?.image
    ? h('img', { src: a.media.image, alt: '', width: 64, height: 48, loading: 'lazy' })
    : h('span', { class: 'no-thumb', text: 'no media' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'activity',
      'data-activity': a.activityId,
      'data-accessory-id': a.accessoryId,
      'aria-pressed': String(state.selected === key),
    },
    h('span', { class: 'thumb' }, thumb),
    h(
      'span',
      { class: 'summary' },
      h('time', { datetime: a.startTime, text: formatTime(a.startTime) }),
      h(
        'span',
        { class: 'meta' },
        a.inProgress
          ? h('span', { class: 'badge live-badge', text: 'in progress' })
          : h('span', { text: formatDuration(a.playbackDuration) }),
        h('span', {
          class: `rel rel-${Math.min(a.relevanceLevel, 3)}`,
          text: `relevance ${a.relevanceLevel}`,
        }),
        a.motionZones.length ? h('span', { text: a.motionZones.join(' ') }) : null,
        state.accessoryId === null
          ? h('span', { class: 'camera', text: accessoryNames.get(a.accessoryId) ?? a.accessoryId })
          : null,
      ),
      h('span', { class: 'id', text: a.activityId }),
    ),
  );
  button.addEventListener('click', () => void selectActivity(key));
  return h('li', { 'data-id': key }, button);
}

$<HTMLFormElement>('filter-form').addEventListener('submit', (e) => {
  e.preventDefault();
  state.filter = $<HTMLInputElement>('filter').value.trim();
  const from = $<HTMLInputElement>('from').value;
  const to = $<HTMLInputElement>('to').value;
  state.where =
    from || to
      ? {
          startTime: {
            ...(from && { gte: new Date(from).toISOString() }),
            ...(to && { lte: new Date(to).toISOString() }),
          },
        }
      : undefined;
  resetTimeline();
});
$<HTMLFormElement>('filter-form').addEventListener('reset', () => {
  state.filter = '';
  state.where = undefined;
  $('filter-error').hidden = true;
  resetTimeline();
});

// ---- export -----------------------------------------------------------------------------------

/** Downloads one MP4 of the selected accessory's clips in the From/To time box. */
async function exportTimeBox(): Promise<void> {
  const status = $<HTMLSpanElement>('export-status');
  const say = (text: string, error = false) => {
    status.textContent = text;
    status.classList.toggle('error-text', error);
  };
  const from = $<HTMLInputElement>('from').value;
  const to = $<HTMLInputElement>('to').value;
  const accessoryId = state.accessoryId;
  if (accessoryId === undefined) return;
  if (accessoryId === null) return say('Choose a camera to export its clips.');
  if (!from || !to) return say('Set From and To to export the clips between them.');
  const button = $<HTMLButtonElement>('export');
  button.disabled = true;
  say('Preparing the export…');
  try {
    // A fresh signed URL: it opens this accessory and exactly this range for a few minutes.
    const { accessory } = await request(ExportUrl, {
      accessoryId,
      start: new Date(from).toISOString(),
      end: new Date(to).toISOString(),
    });
    const url = accessory?.exportUrl;
    if (!url) return say('No clip with video in this time box.');
    const link = h('a', { href: url, download: '', text: 'download again' });
    status.replaceChildren('Export started; ', link);
    link.click();
  } catch (err) {
    say(`Export: ${describe(err)}`, true);
  } finally {
    button.disabled = false;
  }
}
$<HTMLButtonElement>('export').addEventListener('click', () => void exportTimeBox());

// ---- selected activity ------------------------------------------------------------------------

async function selectActivity(key: string): Promise<void> {
  state.selected = key;
  for (const [other, row] of state.rows) {
    row.querySelector('button')?.setAttribute('aria-pressed', String(other === key));
  }
  const known = state.activities.get(key);
  renderDetail(known);
  if (!known) return;
  const { accessoryId, activityId } = known;
  // On the all-cameras timeline, the zones are those of the activity's camera.
  if (zonesFor !== accessoryId) void loadZones(accessoryId);
  // Fresh signed URLs: the listed ones may be close to expiring.
  try {
    const { accessory } = await request(OneActivity, { accessoryId, activityId });
    const fresh = accessory?.activity;
    if (fresh && state.selected === key) {
      state.activities.set(key, fresh);
      renderDetail(fresh, true);
    }
  } catch (err) {
    showError(describe(err));
  }
}

let shownMedia = '';
const retried = new Set<string>();
function renderDetail(a: Activity | undefined, force = false): void {
  const media = $<HTMLDivElement>('media');
  const facts = $<HTMLDListElement>('facts');
  zones.showCells(a?.objectLocations ?? []);
  const shown = a ? `${keyOf(a)}|${a.media?.mp4 ?? ''}|${a.media?.image ?? ''}` : '';
  if (force || shown !== shownMedia) {
    shownMedia = shown;
    if (!a) media.replaceChildren(h('p', { class: 'no-media', text: 'Select an activity' }));
    else if (a.media?.mp4) {
      const video = h('video', {
        src: a.media.mp4,
        poster: a.media.image ?? undefined,
        controls: true,
        preload: 'metadata',
        playsinline: true,
        'aria-label': `Clip of ${a.activityId}`,
      });
      video.addEventListener('error', () => {
        // An expired signature: fetch new URLs once.
        const key = keyOf(a);
        if (state.selected === key && !retried.has(key)) {
          retried.add(key);
          void selectActivity(key);
        }
      });
      media.replaceChildren(video);
    } else if (a.media?.image) {
      media.replaceChildren(h('img', { src: a.media.image, alt: `Thumbnail of ${a.activityId}` }));
    } else {
      media.replaceChildren(h('p', { class: 'no-media', text: 'No media' }));
    }
  }
  if (!a) {
    facts.replaceChildren();
    return;
  }
  const rows: [string, string][] = [
    ['Camera', accessoryNames.get(a.accessoryId) ?? a.accessoryId],
    ['Activity', a.activityId],
    ['Start', formatTime(a.startTime)],
    ['End', a.endTime ? formatTime(a.endTime) : 'in progress'],
    ['Duration', formatDuration(a.playbackDuration) || '–'],
    ['Relevance', String(a.relevanceLevel)],
    ['Motion zones', a.motionZones.join(', ') || '–'],
    ['Object cells', a.objectLocations.join(', ') || '–'],
  ];
  facts.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })]));
}

// ---- live events ------------------------------------------------------------------------------

function setLive(text: string, ok = false): void {
  const el = $('live');
  el.textContent = text;
  el.classList.toggle('on', ok);
}

/** The selected accessory's events; resumes with `after` = the last event id seen. */
const live = new ResumingSubscription<DashAccessoryEventsSubscription, LiveEvent>({
  document: AccessoryEvents,
  variables: (accessoryId, after) => ({ accessoryId, after }),
  pick: (data) => data.accessoryEvents,
  onEvent,
  onReset: resetTimeline,
  status: setLive,
  refused: () => {
    setLive('token rejected');
    showError('The live connection was refused: the token is invalid or expired.');
  },
});

/**
 * The account's activity events, for the all-cameras timeline; resumes like `live`. The server
 * keeps its first page and counts exact; this keeps the rows shown up to date.
 */
const accountLive = new ResumingSubscription<
  DashAccountActivityEventsSubscription,
  AccountLiveEvent
>({
  document: AccountActivityEvents,
  variables: (accountId, after) => ({ accountId, after }),
  pick: (data) => data.accountEvents,
  onEvent: (_accountId, event) => {
    if (event.accessoryId) onEvent(event.accessoryId, event);
  },
  onReset: resetTimeline,
  status: setLive,
  refused: () => {
    setLive('token rejected');
    showError('The live connection was refused: the token is invalid or expired.');
  },
});

const refreshing = new Map<string, boolean>();
async function refreshActivity(accessoryId: string, activityId: string): Promise<void> {
  const key = keyOf({ accessoryId, activityId });
  // One refresh per activity at a time; a change meanwhile refreshes it once more.
  if (refreshing.has(key)) {
    refreshing.set(key, true);
    return;
  }
  refreshing.set(key, false);
  const generation = state.generation;
  try {
    // This activity and newer ones of its accessory that match the current filter and time box
    // (on the all-cameras timeline too: the others' are theirs to refresh).
    const { accessory } = await request(Activities, {
      accessoryId,
      since: activityId,
      first: 100,
      filter: state.filter || null,
      where: state.where ?? null,
    });
    if (generation !== state.generation || !accessory) return;
    const nodes = accessory.activities.edges.map((e) => e.node);
    for (const node of nodes) upsert(node);
    if (!nodes.some((n) => n.activityId === activityId)) remove(key);
  } catch {
    // A failed refresh leaves the row as it was; the next event refreshes it again.
  } finally {
    const again = refreshing.get(key);
    refreshing.delete(key);
    if (again) void refreshActivity(accessoryId, activityId);
  }
}

function onEvent(accessoryId: string, event: LiveEvent | AccountLiveEvent): void {
  const data = (event.eventData ?? {}) as Record<string, unknown>;
  switch (event.eventType) {
    case 'activity_created':
    case 'activity_updated':
    case 'activity_finished':
      if (typeof data.activityId === 'string') void refreshActivity(accessoryId, data.activityId);
      break;
    case 'zones_saved':
      if (accessoryId === zones.shown) {
        zones.load(accessoryId, (data.zones ?? []) as Parameters<typeof zones.load>[1], true);
      }
      break;
    case 'motion_started':
    case 'motion_ended': {
      const badge = document.querySelector<HTMLElement>(
        `[data-accessory="${accessoryId}"] .motion`,
      );
      if (badge) badge.hidden = event.eventType === 'motion_ended';
      break;
    }
  }
}

// ---- notifications ----------------------------------------------------------------------------

const redeliverable = new Set(['discarded', 'gone', 'dropped']);

/**
 * The receiver's health: its state (with why and since when), its rate limit, how it is signed
 * (with a rotation's overlap, if one is on), and Enable.
 */
function receiverHealth(reg: {
  state: string;
  maxPerSecond?: number | null;
  failingSince?: string | null;
  disabledReason?: string | null;
  signing?: string;
  publicKey?: string | null;
  previousKeyUntil?: string | null;
}): HTMLElement {
  const parts = [
    h('strong', { class: `receiver-state ${reg.state}`, text: reg.state }),
    reg.state === 'disabled'
      ? ` – ${reg.disabledReason ?? ''}`
      : reg.failingSince
        ? ` – failing since ${formatTime(reg.failingSince)}`
        : ' – healthy',
    `; ${reg.maxPerSecond ? `at most ${reg.maxPerSecond} per second` : 'no rate limit'}`,
    `; signed ${reg.signing ?? 'hmac-sha256'}${reg.publicKey ? ` (public key ${reg.publicKey})` : ''}`,
    reg.previousKeyUntil
      ? `; key rotation: the previous key signs too until ${formatTime(reg.previousKeyUntil)}`
      : '',
  ];
  const line = h('p', { id: 'receiver-health' }, 'Health: ', ...parts);
  if (reg.state === 'disabled') {
    const button = h('button', { type: 'button', text: 'Enable' });
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        await request(EnableReceiver, { accountId: state.accountId! });
        await loadNotifications();
      } catch (err) {
        showError(`Enable: ${describe(err)}`);
        button.disabled = false;
      }
    });
    line.append(' ', button);
  }
  return line;
}

async function loadNotifications(): Promise<void> {
  const body = $<HTMLDivElement>('notif-body');
  if (!state.accountId) {
    body.replaceChildren(h('p', { class: 'hint', text: 'No account for this token yet.' }));
    return;
  }
  try {
    const { notificationRegistration: reg, notificationDeliveries } = await request(Notifications, {
      accountId: state.accountId,
    });
    const deliveries = notificationDeliveries?.edges.map((e) => e.node) ?? [];
    destinationForm.fill(reg);
    const registration = reg
      ? h('div', { class: 'receiver' }, destinationLine(reg), receiverHealth(reg))
      : h('p', { class: 'hint', text: 'No receiver registered for this client.' });
    const table = h(
      'table',
      { class: 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Created', 'Event', 'Status', 'Attempts', 'Last outcome', ''].map((t) =>
            h('th', { scope: 'col', text: t }),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...deliveries.map((d) => {
          const last = d.attempts[d.attempts.length - 1];
          const cell = h('td');
          if (redeliverable.has(d.status)) {
            const button = h('button', { type: 'button', text: 'Redeliver' });
            button.addEventListener('click', async () => {
              button.disabled = true;
              try {
                await request(Redeliver, { deliveryId: d.id });
                await loadNotifications();
              } catch (err) {
                showError(`Redeliver: ${describe(err)}`);
                button.disabled = false;
              }
            });
            cell.append(button);
          }
          return h(
            'tr',
            {},
            h('td', { text: formatTime(d.createdAt) }),
            h('td', { text: d.eventType }),
            h('td', { text: d.status }),
            h('td', { text: String(d.attemptCount) }),
            h('td', {
              text: last
                ? `${last.outcome}${last.status ? ` ${last.status}` : ''}${last.error ? ` ${last.error}` : ''} (${last.durationMs} ms)`
                : '–',
            }),
            cell,
          );
        }),
      ),
    );
    body.replaceChildren(
      registration,
      deliveries.length ? table : h('p', { class: 'hint', text: 'No deliveries.' }),
    );
  } catch (err) {
    const text =
      err instanceof ApiError && err.code === 'PERMISSION_DENIED'
        ? 'This token lacks the notifications scope.'
        : describe(err);
    body.replaceChildren(h('p', { class: 'hint', text }));
  }
}
$<HTMLButtonElement>('notif-refresh').addEventListener('click', () => void loadNotifications());

const destinationForm = new DestinationForm(() => state.accountId, loadNotifications);
$('notif-refresh').after(destinationForm.element);

type ReceiverEvent = DashReceiverEventsSubscription['accountEvents'];

/** Receiver events shown at most. */
const RECEIVER_EVENTS = 20;

/** What an operational event says, in a line. */
function receiverEventText(event: ReceiverEvent): string {
  const d = (event.eventData ?? {}) as Record<string, string | number | null>;
  const receiver = `${d.clientId}'s receiver ${d.url}`;
  switch (event.eventType) {
    case 'receiver_disabled':
      return `${receiver} disabled: ${d.reason}`;
    case 'receiver_enabled':
      return `${receiver} ${d.cause === 'register' ? 'registered again' : 'enabled'}`;
    case 'delivery_exhausted':
      return `${d.eventType} to ${receiver} discarded after ${d.attempts} attempts (last: ${d.lastStatus ? `HTTP ${d.lastStatus}` : d.lastError})`;
    default:
      return event.eventType;
  }
}

/**
 * The account's operational events (a receiver disabled, enabled, a notification discarded) as
 * they arrive, newest first; each refreshes the receiver's health and delivery log.
 */
const receiverEvents = new ResumingSubscription<DashReceiverEventsSubscription, ReceiverEvent>({
  document: ReceiverEvents,
  variables: (accountId, after) => ({ accountId, after }),
  pick: (data) => data.accountEvents,
  onEvent: (_accountId, event) => {
    const ol = $<HTMLOListElement>('receiver-events');
    ol.querySelector('.hint')?.remove();
    ol.prepend(
      h(
        'li',
        { 'data-event-type': event.eventType },
        h('time', { datetime: event.occurredAt, text: formatTime(event.occurredAt) }),
        ' ',
        h('strong', { text: event.eventType }),
        ` ${receiverEventText(event)}`,
      ),
    );
    while (ol.children.length > RECEIVER_EVENTS) ol.lastElementChild!.remove();
    void loadNotifications();
  },
  onReset: () => undefined,
  status: () => undefined,
  refused: () => showError('The live connection was refused: the token is invalid or expired.'),
});

// ---- boot -------------------------------------------------------------------------------------

$<HTMLFormElement>('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const value = $<HTMLTextAreaElement>('token-input').value.trim();
  if (value) void start(value);
});

// A new `#token=` typed into this tab's address bar: taken like the first, on a fresh page.
window.addEventListener('hashchange', () => {
  if (new URLSearchParams(location.hash.slice(1)).has('token')) {
    takeToken();
    location.reload();
  }
});

const initial = takeToken();
if (initial) void start(initial);
else $('token-gate').hidden = false;
