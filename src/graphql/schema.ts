import { specifiedDirectives } from 'graphql';
import { builder } from './builder.ts';
import { liveDirective } from './live-query.ts';
import './schema/accounts.ts';
import './schema/accessories.ts';
import './schema/activities.ts';
import './schema/notifications.ts';
import './schema/zones.ts';
import './schema/events.ts';

/** The whole GraphQL schema; `schema.graphql` at the project root is its printed form. */
export const schema = builder.toSchema({
  sortSchema: true,
  directives: [...specifiedDirectives, liveDirective],
});
