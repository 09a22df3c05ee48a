/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** A typed filter: every condition given must hold. It means exactly what the equivalent filter string means; with `filter` too, both must hold. */
export type ActivityWhere = {
  motionZones?: ZoneIdsCondition | null | undefined;
  objectLocations?: CellsCondition | null | undefined;
  relevanceLevel?: IntCondition | null | undefined;
  startTime?: DateTimeCondition | null | undefined;
};

/** Object locations: cells 0..127 of the 16x8 grid; both given: both must hold. */
export type CellsCondition = {
  /** Objects in every one of these cells. */
  containsAll?: Array<number> | null | undefined;
  /** An object in at least one of these cells. */
  containsAny?: Array<number> | null | undefined;
};

/** A time box: every bound given must hold, e.g. `{ gte: from, lt: to }`. */
export type DateTimeCondition = {
  gt?: string | null | undefined;
  gte?: string | null | undefined;
  lt?: string | null | undefined;
  lte?: string | null | undefined;
};

/** event: a notification of an event; test: sent by sendTestNotification (eventType test_notification). */
export type DeliveryKind =
  | 'event'
  | 'test';

/** pending: queued, in flight or waiting for a retry; delivered: a 2xx; discarded: every attempt failed (redeliverNotification queues it again); gone: the receiver answered 410 and its registration was removed; dropped: the registration was removed before it was sent. */
export type DeliveryState =
  | 'delivered'
  | 'discarded'
  | 'dropped'
  | 'gone'
  | 'pending';

/** Where a registration’s notifications go (docs/api.md, Destinations). */
export type DestinationKind =
  | 'amqp'
  | 'mqtt'
  | 'nats'
  | 'webhook';

/** The event types of notifications and subscriptions, by their wire names. receiver_disabled, receiver_enabled and delivery_exhausted are the operational events of the account's webhook receivers. zones_saved is streamed to subscribers only: registrations refuse it. */
export type EventType =
  | 'account_deleted'
  | 'activity_created'
  | 'activity_finished'
  | 'activity_media_ready'
  | 'activity_updated'
  | 'delivery_exhausted'
  | 'motion_ended'
  | 'motion_started'
  | 'receiver_disabled'
  | 'receiver_enabled'
  | 'registration_disabled'
  | 'zones_saved';

/** Comparisons of an integer attribute; every one given must hold. */
export type IntCondition = {
  eq?: number | null | undefined;
  gt?: number | null | undefined;
  gte?: number | null | undefined;
  lt?: number | null | undefined;
  lte?: number | null | undefined;
};

/** active: notifications are sent; disabled: the receiver failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS, and nothing is sent until it is registered again or enableNotifications is called. */
export type NotificationRegistrationState =
  | 'active'
  | 'disabled';

export type RegisterNotificationsInput = {
  /** The caller’s own account id. */
  accountId: string | number;
  /** 16..256 characters; never returned. */
  authKey: string;
  eventTypes: Array<EventType>;
  /** AMQP: the exchange; left out: '' (the default exchange). */
  exchange?: string | null | undefined;
  /** Only events matching it are sent: the filter language of Accessory.activities plus accessoryId, evaluated against the activity of activity_* events and the accessoryId and motionZones of motion_* events; account_deleted always passes. */
  filter?: string | null | undefined;
  /** webhook (default): POSTed to url; mqtt, amqp, nats: published to the broker at url. */
  kind?: DestinationKind | null | undefined;
  /** At most this many notifications per second (1..1000); the rest wait, none is dropped for it. Null or left out: no limit. */
  maxPerSecond?: number | null | undefined;
  /** Broker kinds: the broker's password; never returned. */
  password?: string | null | undefined;
  /** hmac-sha256 (default): webhook-signature carries v1, keyed with authKey; ed25519: v1a, with a key pair the service generates and publishes as publicKey. authKey keys X-Vendor-Verify either way. */
  signing?: string | null | undefined;
  /** Broker kinds: the MQTT topic, AMQP routing key or NATS subject, with the placeholders {accountId}, {accessoryId} (- for events of no accessory) and {eventType}. */
  topic?: string | null | undefined;
  url: string;
  /** A JSON object of at most 4 KiB. */
  userData?: unknown;
  /** Broker kinds: the broker's user name; never returned. */
  username?: string | null | undefined;
};

export type VertexInput = {
  x: number;
  y: number;
};

/** Zone membership (z1..z5, zR), answered by the zones-and-time rule (docs/decisions/0031-zones-and-time-rule.md); both given: both must hold. */
export type ZoneIdsCondition = {
  /** In every one of these zones (none: true). */
  containsAll?: Array<string> | null | undefined;
  /** In at least one of these zones (none: false). */
  containsAny?: Array<string> | null | undefined;
};

export type ZoneInput = {
  /** #rrggbb */
  color: string;
  /** z1..z5, unique; zR is reserved. */
  id: string;
  /** 1..64 characters. */
  name: string;
  /** 3..32 points in [0, 1] forming a simple polygon with an area. */
  vertices: Array<VertexInput>;
};

export type DashViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type DashViewerQuery = { viewer: { accountId: string | null, clientId: string, scopes: Array<string> } };

export type DashPageFragment = { hasNextPage: boolean, endCursor: string | null };

export type DashAccessoriesQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type DashAccessoriesQuery = { accessories: { edges: Array<{ node: { id: string, name: string, deviceId: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type DashActivityFragment = { activityId: string, accessoryId: string, startTime: string, endTime: string | null, inProgress: boolean, playbackDuration: number | null, relevanceLevel: number, motionZones: Array<string>, objectLocations: Array<number>, media: { image: string | null, mp4: string | null, hls: string | null, mpd: string | null } | null };

export type DashActivitiesQueryVariables = Exact<{
  accessoryId: string | number;
  first?: number | null | undefined;
  after?: string | null | undefined;
  since?: string | null | undefined;
  filter?: string | null | undefined;
  where?: ActivityWhere | null | undefined;
}>;


export type DashActivitiesQuery = { accessory: { id: string, activities: { edges: Array<{ node: { activityId: string, accessoryId: string, startTime: string, endTime: string | null, inProgress: boolean, playbackDuration: number | null, relevanceLevel: number, motionZones: Array<string>, objectLocations: Array<number>, media: { image: string | null, mp4: string | null, hls: string | null, mpd: string | null } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type DashTimelineQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  filter?: string | null | undefined;
  where?: ActivityWhere | null | undefined;
}>;


export type DashTimelineQuery = { viewer: { activities: { edges: Array<{ node: { activityId: string, accessoryId: string, startTime: string, endTime: string | null, inProgress: boolean, playbackDuration: number | null, relevanceLevel: number, motionZones: Array<string>, objectLocations: Array<number>, media: { image: string | null, mp4: string | null, hls: string | null, mpd: string | null } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } };

export type DashHourlyCountsQueryVariables = Exact<{
  accessoryIds?: Array<string | number> | string | number | null | undefined;
  from: string;
  to: string;
  timeZone?: string | null | undefined;
}>;


export type DashHourlyCountsQuery = { viewer: { activityCounts: { buckets: Array<{ start: string, count: number }> } } };

export type DashOneActivityQueryVariables = Exact<{
  accessoryId: string | number;
  activityId: string;
}>;


export type DashOneActivityQuery = { accessory: { id: string, activity: { activityId: string, accessoryId: string, startTime: string, endTime: string | null, inProgress: boolean, playbackDuration: number | null, relevanceLevel: number, motionZones: Array<string>, objectLocations: Array<number>, media: { image: string | null, mp4: string | null, hls: string | null, mpd: string | null } | null } | null } | null };

export type DashExportUrlQueryVariables = Exact<{
  accessoryId: string | number;
  start: string;
  end: string;
}>;


export type DashExportUrlQuery = { accessory: { id: string, exportUrl: string | null } | null };

export type DashZoneSetFragment = { lastModified: string | null, zones: Array<{ id: string, name: string, color: string, vertices: Array<{ x: number, y: number }> }> };

export type DashZonesQueryVariables = Exact<{
  accessoryId: string | number;
}>;


export type DashZonesQuery = { accessory: { id: string, zones: { lastModified: string | null, zones: Array<{ id: string, name: string, color: string, vertices: Array<{ x: number, y: number }> }> } } | null };

export type DashSaveZonesMutationVariables = Exact<{
  accessoryId: string | number;
  zones: Array<ZoneInput> | ZoneInput;
}>;


export type DashSaveZonesMutation = { saveZones: { lastModified: string | null, zones: Array<{ id: string, name: string, color: string, vertices: Array<{ x: number, y: number }> }> } };

export type DashAccessoryEventsSubscriptionVariables = Exact<{
  accessoryId: string | number;
  after?: string | null | undefined;
}>;


export type DashAccessoryEventsSubscription = { accessoryEvents: { eventId: string, eventType: EventType, eventData: unknown, occurredAt: string } };

export type DashAccountActivityEventsSubscriptionVariables = Exact<{
  accountId: string | number;
  after?: string | null | undefined;
}>;


export type DashAccountActivityEventsSubscription = { accountEvents: { eventId: string, eventType: EventType, eventData: unknown, occurredAt: string, accessoryId: string | null } };

export type DashReceiverEventsSubscriptionVariables = Exact<{
  accountId: string | number;
  after?: string | null | undefined;
}>;


export type DashReceiverEventsSubscription = { accountEvents: { eventId: string, eventType: EventType, eventData: unknown, occurredAt: string } };

export type DashNotificationsQueryVariables = Exact<{
  accountId: string | number;
}>;


export type DashNotificationsQuery = { notificationRegistration: { kind: DestinationKind, url: string, topic: string | null, exchange: string | null, hasCredentials: boolean, eventTypes: Array<EventType>, filter: string | null, userData: unknown, updatedAt: string, maxPerSecond: number | null, state: NotificationRegistrationState, failingSince: string | null, disabledReason: string | null, signing: string, publicKey: string | null, previousKeyUntil: string | null } | null, notificationDeliveries: { edges: Array<{ node: { id: string, kind: DeliveryKind, eventType: string, status: DeliveryState, attemptCount: number, createdAt: string, finishedAt: string | null, attempts: Array<{ attempt: number, outcome: string, status: number | null, error: string | null, durationMs: number }> } }> } | null };

export type DashRegisterDestinationMutationVariables = Exact<{
  input: RegisterNotificationsInput;
}>;


export type DashRegisterDestinationMutation = { registerNotifications: { kind: DestinationKind, url: string, topic: string | null, exchange: string | null, hasCredentials: boolean } };

export type DashEnableReceiverMutationVariables = Exact<{
  accountId: string | number;
}>;


export type DashEnableReceiverMutation = { enableNotifications: { state: NotificationRegistrationState } };

export type DashRedeliverMutationVariables = Exact<{
  deliveryId: string | number;
}>;


export type DashRedeliverMutation = { redeliverNotification: { id: string, status: DeliveryState } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const DashPageFragmentDoc = new TypedDocumentString(`
    fragment DashPage on PageInfo {
  hasNextPage
  endCursor
}
    `, {"fragmentName":"DashPage"}) as unknown as TypedDocumentString<DashPageFragment, unknown>;
export const DashActivityFragmentDoc = new TypedDocumentString(`
    fragment DashActivity on Activity {
  activityId
  accessoryId
  startTime
  endTime
  inProgress
  playbackDuration
  relevanceLevel
  motionZones
  objectLocations
  media {
    image
    mp4
    hls
    mpd
  }
}
    `, {"fragmentName":"DashActivity"}) as unknown as TypedDocumentString<DashActivityFragment, unknown>;
export const DashZoneSetFragmentDoc = new TypedDocumentString(`
    fragment DashZoneSet on AccessoryZones {
  lastModified
  zones {
    id
    name
    color
    vertices {
      x
      y
    }
  }
}
    `, {"fragmentName":"DashZoneSet"}) as unknown as TypedDocumentString<DashZoneSetFragment, unknown>;
export const DashViewerDocument = new TypedDocumentString(`
    query DashViewer {
  viewer {
    accountId
    clientId
    scopes
  }
}
    `, {"hash":"sha256:a59febd7d874f77781d7517c2683841d79b7e9e2dc34d3482c7983d1e1016575"}) as unknown as TypedDocumentString<DashViewerQuery, DashViewerQueryVariables>;
export const DashAccessoriesDocument = new TypedDocumentString(`
    query DashAccessories($after: String) {
  accessories(first: 100, after: $after) {
    edges {
      node {
        id
        name
        deviceId
      }
    }
    pageInfo {
      ...DashPage
    }
  }
}
    fragment DashPage on PageInfo {
  hasNextPage
  endCursor
}`, {"hash":"sha256:6551cd3d0d09ffeb6699ee0bfd1a6993056bdb6d3f99bfe98e119ba7c7116f01"}) as unknown as TypedDocumentString<DashAccessoriesQuery, DashAccessoriesQueryVariables>;
export const DashActivitiesDocument = new TypedDocumentString(`
    query DashActivities($accessoryId: ID!, $first: Int, $after: String, $since: String, $filter: String, $where: ActivityWhere) {
  accessory(id: $accessoryId) {
    id
    activities(
      first: $first
      after: $after
      since: $since
      filter: $filter
      where: $where
    ) {
      edges {
        node {
          ...DashActivity
        }
      }
      pageInfo {
        ...DashPage
      }
    }
  }
}
    fragment DashPage on PageInfo {
  hasNextPage
  endCursor
}
fragment DashActivity on Activity {
  activityId
  accessoryId
  startTime
  endTime
  inProgress
  playbackDuration
  relevanceLevel
  motionZones
  objectLocations
  media {
    image
    mp4
    hls
    mpd
  }
}`, {"hash":"sha256:6213deea2419c5867f2abd431c1961a78b7bb8d72aa3e2ff8bcf5bb67adb15ff"}) as unknown as TypedDocumentString<DashActivitiesQuery, DashActivitiesQueryVariables>;
export const DashTimelineDocument = new TypedDocumentString(`
    query DashTimeline($first: Int, $after: String, $filter: String, $where: ActivityWhere) {
  viewer {
    activities(first: $first, after: $after, filter: $filter, where: $where) {
      edges {
        node {
          ...DashActivity
        }
      }
      pageInfo {
        ...DashPage
      }
    }
  }
}
    fragment DashPage on PageInfo {
  hasNextPage
  endCursor
}
fragment DashActivity on Activity {
  activityId
  accessoryId
  startTime
  endTime
  inProgress
  playbackDuration
  relevanceLevel
  motionZones
  objectLocations
  media {
    image
    mp4
    hls
    mpd
  }
}`, {"hash":"sha256:6f950294039f8b7e5758cd4507c3143999d45cedc5ecf9b41f97e3ede0d8271d"}) as unknown as TypedDocumentString<DashTimelineQuery, DashTimelineQueryVariables>;
export const DashHourlyCountsDocument = new TypedDocumentString(`
    query DashHourlyCounts($accessoryIds: [ID!], $from: DateTime!, $to: DateTime!, $timeZone: String) @live {
  viewer {
    activityCounts(
      from: $from
      to: $to
      bucket: HOUR
      accessoryIds: $accessoryIds
      timeZone: $timeZone
    ) {
      buckets {
        start
        count
      }
    }
  }
}
    `, {"hash":"sha256:d0e0101847b56d4e975b9ee1fc4740ed78c396e2a00f926a07bb72af5a77a1ae"}) as unknown as TypedDocumentString<DashHourlyCountsQuery, DashHourlyCountsQueryVariables>;
export const DashOneActivityDocument = new TypedDocumentString(`
    query DashOneActivity($accessoryId: ID!, $activityId: String!) {
  accessory(id: $accessoryId) {
    id
    activity(activityId: $activityId) {
      ...DashActivity
    }
  }
}
    fragment DashActivity on Activity {
  activityId
  accessoryId
  startTime
  endTime
  inProgress
  playbackDuration
  relevanceLevel
  motionZones
  objectLocations
  media {
    image
    mp4
    hls
    mpd
  }
}`, {"hash":"sha256:76d928abd4ae871d184d167d97889c224224993ab8b2fd7879c5303a77de1d4d"}) as unknown as TypedDocumentString<DashOneActivityQuery, DashOneActivityQueryVariables>;
export const DashExportUrlDocument = new TypedDocumentString(`
    query DashExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {
  accessory(id: $accessoryId) {
    id
    exportUrl(start: $start, end: $end)
  }
}
    `, {"hash":"sha256:ea586c53e0f121a08d0284fd01c1c2bb8eea0c84b817483fe99e61b1d1e3f5cd"}) as unknown as TypedDocumentString<DashExportUrlQuery, DashExportUrlQueryVariables>;
export const DashZonesDocument = new TypedDocumentString(`
    query DashZones($accessoryId: ID!) {
  accessory(id: $accessoryId) {
    id
    zones {
      ...DashZoneSet
    }
  }
}
    fragment DashZoneSet on AccessoryZones {
  lastModified
  zones {
    id
    name
    color
    vertices {
      x
      y
    }
  }
}`, {"hash":"sha256:830fc3b6a886d53a4b1b5d32ee78cd58ce805447120fec45111646fadeda2945"}) as unknown as TypedDocumentString<DashZonesQuery, DashZonesQueryVariables>;
export const DashSaveZonesDocument = new TypedDocumentString(`
    mutation DashSaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {
  saveZones(accessoryId: $accessoryId, zones: $zones) {
    ...DashZoneSet
  }
}
    fragment DashZoneSet on AccessoryZones {
  lastModified
  zones {
    id
    name
    color
    vertices {
      x
      y
    }
  }
}`, {"hash":"sha256:175f5cdf2c86c75aa51d7121195f90c4ade8cb57c2afeabaccd476d1fbd4d7e6"}) as unknown as TypedDocumentString<DashSaveZonesMutation, DashSaveZonesMutationVariables>;
export const DashAccessoryEventsDocument = new TypedDocumentString(`
    subscription DashAccessoryEvents($accessoryId: ID!, $after: String) {
  accessoryEvents(accessoryId: $accessoryId, after: $after) {
    eventId
    eventType
    eventData
    occurredAt
  }
}
    `, {"hash":"sha256:f19a6675056c3441de48602daf6077e9dff858fc517cd4ae21068c3b374fedb1"}) as unknown as TypedDocumentString<DashAccessoryEventsSubscription, DashAccessoryEventsSubscriptionVariables>;
export const DashAccountActivityEventsDocument = new TypedDocumentString(`
    subscription DashAccountActivityEvents($accountId: ID!, $after: String) {
  accountEvents(
    accountId: $accountId
    eventTypes: [activity_created, activity_updated, activity_finished, zones_saved, motion_started, motion_ended]
    after: $after
  ) {
    eventId
    eventType
    eventData
    occurredAt
    accessoryId
  }
}
    `, {"hash":"sha256:f208a58d540984f2bfcc5fb369e589b187465b777dbdeb731c2e1c18ac9caf5e"}) as unknown as TypedDocumentString<DashAccountActivityEventsSubscription, DashAccountActivityEventsSubscriptionVariables>;
export const DashReceiverEventsDocument = new TypedDocumentString(`
    subscription DashReceiverEvents($accountId: ID!, $after: String) {
  accountEvents(
    accountId: $accountId
    eventTypes: [receiver_disabled, receiver_enabled, delivery_exhausted]
    after: $after
  ) {
    eventId
    eventType
    eventData
    occurredAt
  }
}
    `, {"hash":"sha256:68f34b41e968e0e101d3cd4fb2d75c7915e803796e3e18e55f90c4dc7626c1e7"}) as unknown as TypedDocumentString<DashReceiverEventsSubscription, DashReceiverEventsSubscriptionVariables>;
export const DashNotificationsDocument = new TypedDocumentString(`
    query DashNotifications($accountId: ID!) {
  notificationRegistration(accountId: $accountId) {
    kind
    url
    topic
    exchange
    hasCredentials
    eventTypes
    filter
    userData
    updatedAt
    maxPerSecond
    state
    failingSince
    disabledReason
    signing
    publicKey
    previousKeyUntil
  }
  notificationDeliveries(accountId: $accountId, first: 20) {
    edges {
      node {
        id
        kind
        eventType
        status
        attemptCount
        createdAt
        finishedAt
        attempts {
          attempt
          outcome
          status
          error
          durationMs
        }
      }
    }
  }
}
    `, {"hash":"sha256:84882bc13a112273000b7b026b833d8388013a673c7b9563f0663fa383886a20"}) as unknown as TypedDocumentString<DashNotificationsQuery, DashNotificationsQueryVariables>;
export const DashRegisterDestinationDocument = new TypedDocumentString(`
    mutation DashRegisterDestination($input: RegisterNotificationsInput!) {
  registerNotifications(input: $input) {
    kind
    url
    topic
    exchange
    hasCredentials
  }
}
    `, {"hash":"sha256:77be71ec2f021bd6bc72cfe41679e0531474758e2ed709a25b4e44901cf9e0a4"}) as unknown as TypedDocumentString<DashRegisterDestinationMutation, DashRegisterDestinationMutationVariables>;
export const DashEnableReceiverDocument = new TypedDocumentString(`
    mutation DashEnableReceiver($accountId: ID!) {
  enableNotifications(accountId: $accountId) {
    state
  }
}
    `, {"hash":"sha256:01972281ee74014333a214c40802233fc6dcba708afd989974ba8ec444ed3b55"}) as unknown as TypedDocumentString<DashEnableReceiverMutation, DashEnableReceiverMutationVariables>;
export const DashRedeliverDocument = new TypedDocumentString(`
    mutation DashRedeliver($deliveryId: ID!) {
  redeliverNotification(deliveryId: $deliveryId) {
    id
    status
  }
}
    `, {"hash":"sha256:8c9371a12463016a0aca2d1199870cd0064b712ab0b14faf9d9cbd973f451e7b"}) as unknown as TypedDocumentString<DashRedeliverMutation, DashRedeliverMutationVariables>;