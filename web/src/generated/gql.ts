/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query DashViewer {\n    viewer {\n      accountId\n      clientId\n      scopes\n    }\n  }\n": typeof types.DashViewerDocument,
    "\n  fragment DashPage on PageInfo {\n    hasNextPage\n    endCursor\n  }\n": typeof types.DashPageFragmentDoc,
    "\n  query DashAccessories($after: String) {\n    accessories(first: 100, after: $after) {\n      edges {\n        node {\n          id\n          name\n          deviceId\n        }\n      }\n      pageInfo {\n        ...DashPage\n      }\n    }\n  }\n": typeof types.DashAccessoriesDocument,
    "\n  fragment DashActivity on Activity {\n    activityId\n    accessoryId\n    startTime\n    endTime\n    inProgress\n    playbackDuration\n    relevanceLevel\n    motionZones\n    objectLocations\n    media {\n      image\n      mp4\n      hls\n      mpd\n    }\n  }\n": typeof types.DashActivityFragmentDoc,
    "\n  query DashActivities(\n    $accessoryId: ID!\n    $first: Int\n    $after: String\n    $since: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $accessoryId) {\n      id\n      activities(first: $first, after: $after, since: $since, filter: $filter, where: $where) {\n        edges {\n          node {\n            ...DashActivity\n          }\n        }\n        pageInfo {\n          ...DashPage\n        }\n      }\n    }\n  }\n": typeof types.DashActivitiesDocument,
    "\n  query DashTimeline($first: Int, $after: String, $filter: String, $where: ActivityWhere) {\n    viewer {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            ...DashActivity\n          }\n        }\n        pageInfo {\n          ...DashPage\n        }\n      }\n    }\n  }\n": typeof types.DashTimelineDocument,
    "\n  query DashHourlyCounts($accessoryIds: [ID!], $from: DateTime!, $to: DateTime!, $timeZone: String)\n  @live {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: HOUR\n        accessoryIds: $accessoryIds\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n        }\n      }\n    }\n  }\n": typeof types.DashHourlyCountsDocument,
    "\n  query DashOneActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      id\n      activity(activityId: $activityId) {\n        ...DashActivity\n      }\n    }\n  }\n": typeof types.DashOneActivityDocument,
    "\n  query DashExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      id\n      exportUrl(start: $start, end: $end)\n    }\n  }\n": typeof types.DashExportUrlDocument,
    "\n  fragment DashZoneSet on AccessoryZones {\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n": typeof types.DashZoneSetFragmentDoc,
    "\n  query DashZones($accessoryId: ID!) {\n    accessory(id: $accessoryId) {\n      id\n      zones {\n        ...DashZoneSet\n      }\n    }\n  }\n": typeof types.DashZonesDocument,
    "\n  mutation DashSaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...DashZoneSet\n    }\n  }\n": typeof types.DashSaveZonesDocument,
    "\n  subscription DashAccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": typeof types.DashAccessoryEventsDocument,
    "\n  subscription DashAccountActivityEvents($accountId: ID!, $after: String) {\n    accountEvents(\n      accountId: $accountId\n      eventTypes: [\n        activity_created\n        activity_updated\n        activity_finished\n        zones_saved\n        motion_started\n        motion_ended\n      ]\n      after: $after\n    ) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n      accessoryId\n    }\n  }\n": typeof types.DashAccountActivityEventsDocument,
    "\n  subscription DashReceiverEvents($accountId: ID!, $after: String) {\n    accountEvents(\n      accountId: $accountId\n      eventTypes: [receiver_disabled, receiver_enabled, delivery_exhausted]\n      after: $after\n    ) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": typeof types.DashReceiverEventsDocument,
    "\n  query DashNotifications($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      kind\n      url\n      topic\n      exchange\n      hasCredentials\n      eventTypes\n      filter\n      userData\n      updatedAt\n      maxPerSecond\n      state\n      failingSince\n      disabledReason\n      signing\n      publicKey\n      previousKeyUntil\n    }\n    notificationDeliveries(accountId: $accountId, first: 20) {\n      edges {\n        node {\n          id\n          kind\n          eventType\n          status\n          attemptCount\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            outcome\n            status\n            error\n            durationMs\n          }\n        }\n      }\n    }\n  }\n": typeof types.DashNotificationsDocument,
    "\n  mutation DashRegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      kind\n      url\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n": typeof types.DashRegisterDestinationDocument,
    "\n  mutation DashEnableReceiver($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n    }\n  }\n": typeof types.DashEnableReceiverDocument,
    "\n  mutation DashRedeliver($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n    }\n  }\n": typeof types.DashRedeliverDocument,
};
const documents: Documents = {
    "\n  query DashViewer {\n    viewer {\n      accountId\n      clientId\n      scopes\n    }\n  }\n": types.DashViewerDocument,
    "\n  fragment DashPage on PageInfo {\n    hasNextPage\n    endCursor\n  }\n": types.DashPageFragmentDoc,
    "\n  query DashAccessories($after: String) {\n    accessories(first: 100, after: $after) {\n      edges {\n        node {\n          id\n          name\n          deviceId\n        }\n      }\n      pageInfo {\n        ...DashPage\n      }\n    }\n  }\n": types.DashAccessoriesDocument,
    "\n  fragment DashActivity on Activity {\n    activityId\n    accessoryId\n    startTime\n    endTime\n    inProgress\n    playbackDuration\n    relevanceLevel\n    motionZones\n    objectLocations\n    media {\n      image\n      mp4\n      hls\n      mpd\n    }\n  }\n": types.DashActivityFragmentDoc,
    "\n  query DashActivities(\n    $accessoryId: ID!\n    $first: Int\n    $after: String\n    $since: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $accessoryId) {\n      id\n      activities(first: $first, after: $after, since: $since, filter: $filter, where: $where) {\n        edges {\n          node {\n            ...DashActivity\n          }\n        }\n        pageInfo {\n          ...DashPage\n        }\n      }\n    }\n  }\n": types.DashActivitiesDocument,
    "\n  query DashTimeline($first: Int, $after: String, $filter: String, $where: ActivityWhere) {\n    viewer {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            ...DashActivity\n          }\n        }\n        pageInfo {\n          ...DashPage\n        }\n      }\n    }\n  }\n": types.DashTimelineDocument,
    "\n  query DashHourlyCounts($accessoryIds: [ID!], $from: DateTime!, $to: DateTime!, $timeZone: String)\n  @live {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: HOUR\n        accessoryIds: $accessoryIds\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n        }\n      }\n    }\n  }\n": types.DashHourlyCountsDocument,
    "\n  query DashOneActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      id\n      activity(activityId: $activityId) {\n        ...DashActivity\n      }\n    }\n  }\n": types.DashOneActivityDocument,
    "\n  query DashExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      id\n      exportUrl(start: $start, end: $end)\n    }\n  }\n": types.DashExportUrlDocument,
    "\n  fragment DashZoneSet on AccessoryZones {\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n": types.DashZoneSetFragmentDoc,
    "\n  query DashZones($accessoryId: ID!) {\n    accessory(id: $accessoryId) {\n      id\n      zones {\n        ...DashZoneSet\n      }\n    }\n  }\n": types.DashZonesDocument,
    "\n  mutation DashSaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...DashZoneSet\n    }\n  }\n": types.DashSaveZonesDocument,
    "\n  subscription DashAccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": types.DashAccessoryEventsDocument,
    "\n  subscription DashAccountActivityEvents($accountId: ID!, $after: String) {\n    accountEvents(\n      accountId: $accountId\n      eventTypes: [\n        activity_created\n        activity_updated\n        activity_finished\n        zones_saved\n        motion_started\n        motion_ended\n      ]\n      after: $after\n    ) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n      accessoryId\n    }\n  }\n": types.DashAccountActivityEventsDocument,
    "\n  subscription DashReceiverEvents($accountId: ID!, $after: String) {\n    accountEvents(\n      accountId: $accountId\n      eventTypes: [receiver_disabled, receiver_enabled, delivery_exhausted]\n      after: $after\n    ) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n": types.DashReceiverEventsDocument,
    "\n  query DashNotifications($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      kind\n      url\n      topic\n      exchange\n      hasCredentials\n      eventTypes\n      filter\n      userData\n      updatedAt\n      maxPerSecond\n      state\n      failingSince\n      disabledReason\n      signing\n      publicKey\n      previousKeyUntil\n    }\n    notificationDeliveries(accountId: $accountId, first: 20) {\n      edges {\n        node {\n          id\n          kind\n          eventType\n          status\n          attemptCount\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            outcome\n            status\n            error\n            durationMs\n          }\n        }\n      }\n    }\n  }\n": types.DashNotificationsDocument,
    "\n  mutation DashRegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      kind\n      url\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n": types.DashRegisterDestinationDocument,
    "\n  mutation DashEnableReceiver($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n    }\n  }\n": types.DashEnableReceiverDocument,
    "\n  mutation DashRedeliver($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n    }\n  }\n": types.DashRedeliverDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashViewer {\n    viewer {\n      accountId\n      clientId\n      scopes\n    }\n  }\n"): typeof import('./graphql.js').DashViewerDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment DashPage on PageInfo {\n    hasNextPage\n    endCursor\n  }\n"): typeof import('./graphql.js').DashPageFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashAccessories($after: String) {\n    accessories(first: 100, after: $after) {\n      edges {\n        node {\n          id\n          name\n          deviceId\n        }\n      }\n      pageInfo {\n        ...DashPage\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashAccessoriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment DashActivity on Activity {\n    activityId\n    accessoryId\n    startTime\n    endTime\n    inProgress\n    playbackDuration\n    relevanceLevel\n    motionZones\n    objectLocations\n    media {\n      image\n      mp4\n      hls\n      mpd\n    }\n  }\n"): typeof import('./graphql.js').DashActivityFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashActivities(\n    $accessoryId: ID!\n    $first: Int\n    $after: String\n    $since: String\n    $filter: String\n    $where: ActivityWhere\n  ) {\n    accessory(id: $accessoryId) {\n      id\n      activities(first: $first, after: $after, since: $since, filter: $filter, where: $where) {\n        edges {\n          node {\n            ...DashActivity\n          }\n        }\n        pageInfo {\n          ...DashPage\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashActivitiesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashTimeline($first: Int, $after: String, $filter: String, $where: ActivityWhere) {\n    viewer {\n      activities(first: $first, after: $after, filter: $filter, where: $where) {\n        edges {\n          node {\n            ...DashActivity\n          }\n        }\n        pageInfo {\n          ...DashPage\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashTimelineDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashHourlyCounts($accessoryIds: [ID!], $from: DateTime!, $to: DateTime!, $timeZone: String)\n  @live {\n    viewer {\n      activityCounts(\n        from: $from\n        to: $to\n        bucket: HOUR\n        accessoryIds: $accessoryIds\n        timeZone: $timeZone\n      ) {\n        buckets {\n          start\n          count\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashHourlyCountsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashOneActivity($accessoryId: ID!, $activityId: String!) {\n    accessory(id: $accessoryId) {\n      id\n      activity(activityId: $activityId) {\n        ...DashActivity\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashOneActivityDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {\n    accessory(id: $accessoryId) {\n      id\n      exportUrl(start: $start, end: $end)\n    }\n  }\n"): typeof import('./graphql.js').DashExportUrlDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment DashZoneSet on AccessoryZones {\n    lastModified\n    zones {\n      id\n      name\n      color\n      vertices {\n        x\n        y\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashZoneSetFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashZones($accessoryId: ID!) {\n    accessory(id: $accessoryId) {\n      id\n      zones {\n        ...DashZoneSet\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashZonesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DashSaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {\n    saveZones(accessoryId: $accessoryId, zones: $zones) {\n      ...DashZoneSet\n    }\n  }\n"): typeof import('./graphql.js').DashSaveZonesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DashAccessoryEvents($accessoryId: ID!, $after: String) {\n    accessoryEvents(accessoryId: $accessoryId, after: $after) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"): typeof import('./graphql.js').DashAccessoryEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DashAccountActivityEvents($accountId: ID!, $after: String) {\n    accountEvents(\n      accountId: $accountId\n      eventTypes: [\n        activity_created\n        activity_updated\n        activity_finished\n        zones_saved\n        motion_started\n        motion_ended\n      ]\n      after: $after\n    ) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n      accessoryId\n    }\n  }\n"): typeof import('./graphql.js').DashAccountActivityEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DashReceiverEvents($accountId: ID!, $after: String) {\n    accountEvents(\n      accountId: $accountId\n      eventTypes: [receiver_disabled, receiver_enabled, delivery_exhausted]\n      after: $after\n    ) {\n      eventId\n      eventType\n      eventData\n      occurredAt\n    }\n  }\n"): typeof import('./graphql.js').DashReceiverEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DashNotifications($accountId: ID!) {\n    notificationRegistration(accountId: $accountId) {\n      kind\n      url\n      topic\n      exchange\n      hasCredentials\n      eventTypes\n      filter\n      userData\n      updatedAt\n      maxPerSecond\n      state\n      failingSince\n      disabledReason\n      signing\n      publicKey\n      previousKeyUntil\n    }\n    notificationDeliveries(accountId: $accountId, first: 20) {\n      edges {\n        node {\n          id\n          kind\n          eventType\n          status\n          attemptCount\n          createdAt\n          finishedAt\n          attempts {\n            attempt\n            outcome\n            status\n            error\n            durationMs\n          }\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').DashNotificationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DashRegisterDestination($input: RegisterNotificationsInput!) {\n    registerNotifications(input: $input) {\n      kind\n      url\n      topic\n      exchange\n      hasCredentials\n    }\n  }\n"): typeof import('./graphql.js').DashRegisterDestinationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DashEnableReceiver($accountId: ID!) {\n    enableNotifications(accountId: $accountId) {\n      state\n    }\n  }\n"): typeof import('./graphql.js').DashEnableReceiverDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DashRedeliver($deliveryId: ID!) {\n    redeliverNotification(deliveryId: $deliveryId) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql.js').DashRedeliverDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
