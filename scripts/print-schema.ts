// Writes schema.graphql from the Pothos schema: `npm run schema:print` after changing GraphQL.
import fs from 'node:fs/promises';
import { printSchema } from 'graphql';
import { schema } from '../src/graphql/schema.ts';

await fs.writeFile(new URL('../schema.graphql', import.meta.url), printSchema(schema) + '\n');
