// Writes test/generated/openapi.ts, the TypeScript types of /openapi.json (openapi-typescript),
// which the tests use with openapi-fetch: `npm run openapi:types` after changing a REST route.
// test/http/openapi.test.ts fails while the committed file is stale.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

export const OPENAPI_TYPES = new URL('../test/generated/openapi.ts', import.meta.url);

/** The types of an OpenAPI document, as committed. */
export async function openApiTypes(document: object): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3);
  return `// Generated from /openapi.json by \`npm run openapi:types\`; do not edit.\n\n${astToString(ast)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The document of a service with the default configuration, on a throwaway embedded database.
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-openapi-'));
  const app = await buildApp(loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
    embeddedDir: 'memory://',
  });
  try {
    await app.listen();
    const document = (await (await fetch(`${app.url()}/openapi.json`)).json()) as object;
    await fs.writeFile(OPENAPI_TYPES, await openApiTypes(document));
  } finally {
    await app.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
