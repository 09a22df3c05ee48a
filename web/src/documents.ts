/** The dashboard's GraphQL operations, typed by `npm run codegen` (web/src/generated). */
import { graphql } from './generated/index.ts';

export const Viewer = graphql(`
  query DashViewer {
    viewer {
      accountId
      clientId
      scopes
    }
  }
`);

export const PageFields = graphql(`
  fragment DashPage on PageInfo {
    hasNextPage
    endCursor
  }
`);

export const Accessories = graphql(`
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
`);

export const ActivityFields = graphql(`
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
`);

export const Activities = graphql(`
  query DashActivities(
    $accessoryId: ID!
    $first: Int
    $after: String
    $since: String
    $filter: String
    $where: ActivityWhere
  ) {
    accessory(id: $accessoryId) {
      id
      activities(first: $first, after: $after, since: $since, filter: $filter, where: $where) {
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
`);

export const Timeline = graphql(`
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
`);

export const HourlyCounts = graphql(`
  query DashHourlyCounts($accessoryIds: [ID!], $from: DateTime!, $to: DateTime!, $timeZone: String)
  @live {
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
`);

export const OneActivity = graphql(`
  query DashOneActivity($accessoryId: ID!, $activityId: String!) {
    accessory(id: $accessoryId) {
      id
      activity(activityId: $activityId) {
        ...DashActivity
      }
    }
  }
`);

export const ExportUrl = graphql(`
  query DashExportUrl($accessoryId: ID!, $start: DateTime!, $end: DateTime!) {
    accessory(id: $accessoryId) {
      id
      exportUrl(start: $start, end: $end)
    }
  }
`);

export const ZoneSetFields = graphql(`
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
`);

export const Zones = graphql(`
  query DashZones($accessoryId: ID!) {
    accessory(id: $accessoryId) {
      id
      zones {
        ...DashZoneSet
      }
    }
  }
`);

export const SaveZones = graphql(`
  mutation DashSaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {
    saveZones(accessoryId: $accessoryId, zones: $zones) {
      ...DashZoneSet
    }
  }
`);

export const AccessoryEvents = graphql(`
  subscription DashAccessoryEvents($accessoryId: ID!, $after: String) {
    accessoryEvents(accessoryId: $accessoryId, after: $after) {
      eventId
      eventType
      eventData
      occurredAt
    }
  }
`);

export const AccountActivityEvents = graphql(`
  subscription DashAccountActivityEvents($accountId: ID!, $after: String) {
    accountEvents(
      accountId: $accountId
      eventTypes: [
        activity_created
        activity_updated
        activity_finished
        zones_saved
        motion_started
        motion_ended
      ]
      after: $after
    ) {
      eventId
      eventType
      eventData
      occurredAt
      accessoryId
    }
  }
`);

export const ReceiverEvents = graphql(`
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
`);

export const Notifications = graphql(`
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
`);

/** Registers (or replaces) the client's registration: where its notifications go. */
export const RegisterDestination = graphql(`
  mutation DashRegisterDestination($input: RegisterNotificationsInput!) {
    registerNotifications(input: $input) {
      kind
      url
      topic
      exchange
      hasCredentials
    }
  }
`);

export const EnableReceiver = graphql(`
  mutation DashEnableReceiver($accountId: ID!) {
    enableNotifications(accountId: $accountId) {
      state
    }
  }
`);

export const Redeliver = graphql(`
  mutation DashRedeliver($deliveryId: ID!) {
    redeliverNotification(deliveryId: $deliveryId) {
      id
      status
    }
  }
`);
