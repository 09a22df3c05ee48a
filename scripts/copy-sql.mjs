// Copies the stored functions' files (src/**/sql/*.sql) next to the compiled service, which
// applies them at start (src/storage/routines.ts): `node scripts/copy-sql.mjs [outDir]`.
import fs from 'node:fs';
import path from 'node:path';

const out = process.argv[2] ?? 'dist';
for (const file of fs.readdirSync('src', { recursive: true })) {
  if (!/(^|[\\/])sql[\\/][^\\/]+\.sql$/.test(file)) continue;
  fs.mkdirSync(path.join(out, path.dirname(file)), { recursive: true });
  fs.copyFileSync(path.join('src', file), path.join(out, file));
}
