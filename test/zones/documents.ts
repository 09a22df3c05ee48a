import { graphql } from '../generated/index.ts';

/** The GraphQL documents of the zone tests (typed by `npm run codegen`). */
// The whole zones answer, as saveZones and Accessory.zones both return it.
export const ZonesFields = graphql(`
  fragment ZonesFields on AccessoryZones {
    accessoryId
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

export const SaveZones = graphql(`
  mutation SaveZones($accessoryId: ID!, $zones: [ZoneInput!]!) {
    saveZones(accessoryId: $accessoryId, zones: $zones) {
      ...ZonesFields
    }
  }
`);

export const AccessoryZones = graphql(`
  query AccessoryZones($id: ID!) {
    accessory(id: $id) {
      zones {
        ...ZonesFields
      }
    }
  }
`);

export const FilteredPage = graphql(`
  query FilteredPage(
    $id: ID!
    $first: Int
    $after: String
    $filter: String
    $where: ActivityWhere
  ) {
    accessory(id: $id) {
      activities(first: $first, after: $after, filter: $filter, where: $where) {
        edges {
          node {
            activityId
          }
        }
        nextStartActivityId
      }
    }
  }
`);

export const ZoneEvents = graphql(`
  subscription ZoneEvents($accessoryId: ID!, $after: String) {
    accessoryEvents(accessoryId: $accessoryId, after: $after) {
      eventId
      accessoryId
      eventType
      eventData
    }
  }
`);
