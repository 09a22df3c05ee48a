import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The dashboard, served by the service at /app (src/web/static.ts) from web/dist. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
});
