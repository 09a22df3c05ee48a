import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const manifest = new URL('./src/generated/persisted-documents.json', import.meta.url);

/**
 * The API reference's files (src/web/reference.ts serves them at /docs): taken from their npm
 * packages, which are build-time dependencies only, into web/dist/reference/ with the packages'
 * versions, so that the service and its image carry these few files and not the packages.
 */
const require = createRequire(import.meta.url);
const referencePackages = {
  'swagger-ui-dist': {
    'swagger-ui.js': 'swagger-ui-bundle.js',
    'swagger-ui.css': 'swagger-ui.css',
    'favicon.png': 'favicon-32x32.png',
  },
  '@asyncapi/react-component': {
    'asyncapi.js': 'browser/standalone/index.js',
    'asyncapi.css': 'styles/default.min.css',
  },
};

/**
 * The dashboard, served by the service at /app (src/web/static.ts) from web/dist. The build
 * carries the dashboard's documents by hash (`npm run codegen`), which the service loads at
 * start: the dashboard sends hashes only (src/graphql/documents.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    {
      name: 'api-reference',
      generateBundle() {
        const versions: Record<string, string> = {};
        for (const [name, files] of Object.entries(referencePackages)) {
          const dir = path.dirname(require.resolve(`${name}/package.json`));
          versions[name] = (require(`${name}/package.json`) as { version: string }).version;
          for (const [fileName, from] of Object.entries(files)) {
            const source = readFileSync(path.join(dir, from));
            this.emitFile({ type: 'asset', fileName: `reference/${fileName}`, source });
          }
        }
        const source = JSON.stringify(versions);
        this.emitFile({ type: 'asset', fileName: 'reference/versions.json', source });
      },
    },
    {
      name: 'persisted-documents',
      generateBundle() {
        this.emitFile({
          type: 'asset',
          fileName: 'persisted-documents.json',
          source: readFileSync(manifest, 'utf8'),
        });
      },
    },
  ],
  base: '/app/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
});
