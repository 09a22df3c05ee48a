import { AccessoryService } from './accessories/service.ts';
import { createAuthenticator, type Authenticator } from './accounts/auth.ts';
import { AccountService } from './accounts/service.ts';
import { ActivityService } from './activities/service.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { EventSignal } from './events/outbox.ts';
import { createEventBus } from './events/pubsub.ts';
import { ConnectionLimiter } from './events/live/connections.ts';
import { LiveEvents } from './events/live/live-events.ts';
import { liveObserver } from './events/live/observer.ts';
import { EventLog } from './events/log.ts';
import { EventPull } from './events/pull.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import type { Disposables } from './lifecycle.ts';
import { Admission } from './limits/admission.ts';
import { RateLimiter } from './limits/rate.ts';
import type { Logger } from './logger.ts';
import { MediaService } from './media/service.ts';
import { Dispatcher } from './notifications/delivery/dispatcher.ts';
import { createSecretBox, loadSecretsKey, type SecretBox } from './notifications/secrets.ts';
import { NotificationService } from './notifications/service.ts';
import { openDatabase, type Database, type DatabaseOptions } from './storage/database.ts';
import { embeddedDirectory } from './storage/embedded-lock.ts';
import { poolMetrics, registerReplicaMetrics } from './storage/metrics.ts';
import { ZoneService } from './accessories/zones.ts';

/**
 * What serving a read needs: the database, token auth and the domain services over them. A
 * GraphQL worker thread builds only these (`buildReadServices`).
 */
export interface ReadServices {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  db: Database;
  auth: Authenticator;
  signal: EventSignal;
  accounts: AccountService;
  accessories: AccessoryService;
  activities: ActivityService;
  media: MediaService;
  notifications: NotificationService;
  zones: ZoneService;
}

/**
 * The services of an instance, built once per app and shared by REST, GraphQL and background
 * jobs: the read side, and what only the instance runs (live events, webhook delivery, limits).
 */
export interface Services extends ReadServices {
  /** Live events for GraphQL subscriptions, fed with what `signal` reports committed. */
  live: LiveEvents;
  /** An account's events from the log after a cursor, waiting on `live` (a long poll). */
  pull: EventPull;
  /** Live connections (WebSockets, SSE streams) per instance and per token subject. */
  liveConnections: ConnectionLimiter;
  /** Webhook delivery: claims what the outbox queued and sends it. */
  dispatcher: Dispatcher;
  /** Each OAuth client's request budget per account (shared through Redis when set). */
  rateLimiter: RateLimiter;
  /** How many requests of one caller execute at once on this instance. */
  admission: Admission;
}

export interface ServiceOptions {
  logger: Logger;
  /** Where the embedded database lives; default `<DATA_DIR>/pgdata`, `memory://` for tests. */
  embeddedDir?: string;
  /** The starting contents of a `memory://` embedded database (tests: a migrated image). */
  embeddedImage?: Blob;
  /** Routes the pool's connections to the embedded database (tests: through a TCP proxy). */
  routeEmbedded?: DatabaseOptions['routeEmbedded'];
  /** The time receiver health counts with; the system's unless a test moves it. */
  clock?: Clock;
  /** false: the database is migrated already (a GraphQL worker thread's services). */
  migrate?: boolean;
  /**
   * false: the start-up notices (keys kept in the data directory, the media store, ffmpeg) were
   * logged by the instance already (a GraphQL worker thread's services).
   */
  announce?: boolean;
  /**
   * false: the process's own metrics are the instance's, which serves them (a GraphQL worker
   * thread's services, whose registry nobody reads).
   */
  processMetrics?: boolean;
}

/**
 * Opens the database and builds the read side on it, each part registering its undoing with
 * `disposables` as soon as it exists; with the webhook secrets' box, for the dispatcher.
 */
export async function buildReadServices(
  config: Config,
  options: ServiceOptions,
  disposables: Disposables,
): Promise<ReadServices & { secrets: SecretBox }> {
  const { logger } = options;
  const announce = options.announce ?? true;
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    readUrl: config.databaseReadUrl,
    readMaxLagMs: config.databaseReadMaxLagMs,
    poolSize: config.databasePoolSize,
    poolShare: config.databasePoolShare,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    directUrl: config.databaseDirectUrl,
    embeddedDir: options.embeddedDir ?? embeddedDirectory(config.dataDir),
    embeddedImage: options.embeddedImage,
    logger,
    routeEmbedded: options.routeEmbedded,
    migrate: options.migrate,
  });
  disposables.defer('database', () => db.close());
  const auth = await createAuthenticator({
    auth: config.auth,
    scopePrefix: config.scopePrefix,
    dataDir: config.dataDir,
    logger,
    announce,
  });
  const metrics = createMetrics({ processMetrics: options.processMetrics });
  const { replica } = db;
  if (replica) registerReplicaMetrics(metrics.registry, () => replica.state());
  db.observePools(poolMetrics(metrics.registry));
  const signal = new EventSignal();
  // Read-your-writes on a read replica: an account that wrote reads from the primary until the
  // replica has replayed its write. Every change a listing shows commits events.
  if (db.replica) {
    signal.subscribe((events) => {
      for (const event of events) db.noteWrite(event.accountId);
    });
  }
  const secrets = createSecretBox(
    (await loadSecretsKey(config.dataDir, config.webhook.secretsKey, announce ? logger : undefined))
      .key,
  );
  const clock = options.clock ?? systemClock;
  const notifications = new NotificationService(
    db,
    config.webhook,
    secrets,
    auth.scopeName('notifications_motion'),
    signal,
    clock,
  );
  const media = await MediaService.create({
    db,
    config,
    logger,
    signal,
    announce,
    exportObserver: {
      refused: (reason) => {
        metrics.exportRefusals.inc({ reason });
        // The 429s; the 503s count as `unavailable` where they are answered.
        if (reason === 'account_busy' || reason === 'url_rate_limited') {
          metrics.refusals.inc({ reason: 'rate_limited' });
        }
      },
      cut: (reason) => metrics.exportCuts.inc({ reason }),
      slots: (change) => metrics.exportSlots.inc(change),
    },
  });
  disposables.defer('media', () => media.close());
  const accessories = new AccessoryService(db);
  return {
    config,
    logger,
    metrics,
    db,
    auth,
    signal,
    secrets,
    accounts: new AccountService(db, signal),
    accessories,
    activities: new ActivityService(db, accessories, signal, {
      announce: (activities) => media.readiness.announcePending(db.pool, activities),
    }),
    media,
    notifications,
    zones: new ZoneService(db, accessories, signal),
  };
}

/**
 * The read side (`buildReadServices`) and what the instance runs besides: webhook delivery, live
 * events on the pub/sub, the rate limiter. Nothing runs in the background yet: `startServices`.
 */
export async function buildServices(
  config: Config,
  options: ServiceOptions,
  disposables: Disposables,
): Promise<Services> {
  const { secrets, ...read } = await buildReadServices(config, options, disposables);
  const { logger, metrics, db, signal } = read;
  const dispatcher = new Dispatcher({
    db,
    webhook: config.webhook,
    secrets,
    logger,
    signal,
    metrics,
    clock: options.clock ?? systemClock,
  });
  read.notifications.onQueued(() => dispatcher.wake());
  // Attempts in flight finish (and are recorded) before the database closes.
  disposables.defer('webhook dispatcher', () => dispatcher.close());
  // Committed events go to the pub/sub (Redis when REDIS_URL or REDIS_CLUSTER_NODES is set), which feeds the
  // subscribers of every instance.
  const bus = await createEventBus(config.redis, logger, () =>
    metrics.liveWaitTimeouts.inc({ wait: 'resubscribe' }),
  );
  disposables.defer('event bus', () => bus.close());
  const log = new EventLog(db);
  const live = new LiveEvents({
    bus,
    log,
    observer: liveObserver(metrics, logger),
    bufferEvents: config.live.bufferEvents,
    retentionHours: config.eventLogRetentionHours,
    bounds: { checkMs: config.live.checkMs },
  });
  disposables.defer('live events', () => live.close());
  signal.subscribe((events) => live.publish(events));
  const liveConnections = new ConnectionLimiter(
    config.live.maxConnections,
    config.live.maxConnectionsPerSubject,
  );
  const rateLimiter = new RateLimiter(config.limits, config.redis, logger, metrics);
  disposables.defer('rate limiter', () => rateLimiter.close());
  await rateLimiter.ready();
  return {
    ...read,
    live,
    pull: new EventPull(log, live, liveConnections, config.eventLogRetentionHours),
    liveConnections,
    dispatcher,
    rateLimiter,
    admission: new Admission(config.limits),
  };
}

/**
 * Starts what works on its own: webhook delivery (resuming what is pending) and media (following
 * events). Periodic work, packaging's poll among it, is src/background.ts.
 */
export async function startServices(services: Services): Promise<void> {
  services.dispatcher.start();
  await services.media.start(services.signal);
}
