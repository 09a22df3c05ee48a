import { defineConfig } from 'prisma/config';

// The service applies prisma/migrations itself at start (src/storage/migrate.ts); the CLI is only
// used for `prisma generate`, which needs no database.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
