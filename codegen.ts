import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed documents for the tests (and any TypeScript client): write operations with
 * `graphql(...)` from test/generated, then `npm run codegen`. The output is committed;
 * test/graphql/schema.test.ts fails when it no longer matches the schema or the documents.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: true,
  emitLegacyCommonJSImports: false,
  generates: {
    'test/generated/': {
      documents: ['test/**/*.ts', '!test/generated/**'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
    // The dashboard (web/): documents as strings, so the bundle needs no GraphQL parser, each
    // with its SHA-256, which the dashboard sends instead of the text. The hashes and documents
    // go to persisted-documents.json, which the dashboard's build carries to the service
    // (web/vite.config.ts, src/graphql/documents.ts).
    'web/src/generated/': {
      documents: ['web/src/**/*.ts', '!web/src/generated/**'],
      preset: 'client',
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        documentMode: 'string',
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
};

export default config;
