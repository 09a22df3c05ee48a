import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const manifest = new URL('./src/generated/persisted-documents.json', import.meta.url);

/**
 * The dashboard, served by the service at /app (src/web/static.ts) from web/dist. The build
 * carries the dashboard's documents by hash (`npm run codegen`), which the service loads at
 * start: the dashboard sends hashes only (src/graphql/documents.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
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
