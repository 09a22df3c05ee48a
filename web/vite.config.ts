import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, defineConfig, type Rollup } from 'vite';

const manifest = new URL('./src/generated/persisted-documents.json', import.meta.url);

/**
 * The API reference's files (src/web/reference.ts serves them at /docs), in web/dist/reference/:
 * Swagger UI's taken from its npm package, a build-time dependency only, so that the service and
 * its image carry these few files and not the package; and the events' view
 * (src/events-reference.ts), built as a script and stylesheet of its own. versions.json holds the
 * package's version and a hash of the view, which the files' path changes with.
 */
const require = createRequire(import.meta.url);
const referencePackages = {
  'swagger-ui-dist': {
    'swagger-ui.js': 'swagger-ui-bundle.js',
    'swagger-ui.css': 'swagger-ui.css',
    'favicon.png': 'favicon-32x32.png',
  },
};
const root = fileURLToPath(new URL('.', import.meta.url));

/** The events' view as one classic script and its stylesheet: the page loads no modules. */
async function buildEventsView(): Promise<Record<string, string>> {
  const built = (await build({
    configFile: false,
    root,
    logLevel: 'warn',
    build: {
      write: false,
      target: 'es2022',
      lib: {
        entry: 'src/events-reference.ts',
        formats: ['iife'],
        name: 'eventsReference',
        fileName: () => 'asyncapi.js',
        cssFileName: 'asyncapi',
      },
    },
  })) as Rollup.RollupOutput[];
  return Object.fromEntries(
    built[0]!.output.map((file) => [
      file.fileName,
      file.type === 'chunk' ? file.code : String(file.source),
    ]),
  );
}

/**
 * The dashboard, served by the service at /app (src/web/static.ts) from web/dist. The build
 * carries the dashboard's documents by hash (`npm run codegen`), which the service loads at
 * start: the dashboard sends hashes only (src/graphql/documents.ts).
 */
export default defineConfig({
  root,
  plugins: [
    {
      name: 'api-reference',
      async generateBundle() {
        const versions: Record<string, string> = {};
        for (const [name, files] of Object.entries(referencePackages)) {
          const dir = path.dirname(require.resolve(`${name}/package.json`));
          versions[name] = (require(`${name}/package.json`) as { version: string }).version;
          for (const [fileName, from] of Object.entries(files)) {
            const source = readFileSync(path.join(dir, from));
            this.emitFile({ type: 'asset', fileName: `reference/${fileName}`, source });
          }
        }
        const view = await buildEventsView();
        const hash = createHash('sha256');
        for (const [fileName, source] of Object.entries(view)) {
          hash.update(source);
          this.emitFile({ type: 'asset', fileName: `reference/${fileName}`, source });
        }
        versions['events view'] = hash.digest('base64url').slice(0, 16);
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
