import { specifiedDirectives } from 'graphql';
import { builder } from './builder.ts';
import { liveDirective } from './live-query.ts';
import '../accounts/schema.ts';
import '../accessories/schema.ts';
import '../activities/schema.ts';
import '../notifications/schema.ts';
import '../zones/schema.ts';
import '../events/schema.ts';

/** The whole GraphQL schema; `schema.graphql` at the project root is its printed form. */
export const schema = builder.toSchema({
  sortSchema: true,
  directives: [...specifiedDirectives, liveDirective],
});
