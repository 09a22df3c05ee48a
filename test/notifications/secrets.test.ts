import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  createSecretBox,
  loadSecretsKey,
  rememberOpened,
  secretContext,
  type SecretBox,
} from '../../src/notifications/secrets.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});
const tempDir = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'clipgate-secrets-'));
  dirs.push(dir);
  return dir;
};

describe('the secret box (AES-256-GCM)', () => {
  const box = createSecretBox(randomBytes(32));
  const context = secretContext('0b5f4a3e-7c1d-4e2f-8a9b-0c1d2e3f4a5b', 'client-a');

  it('opens what it sealed, with a fresh nonce each time', () => {
    const a = box.seal('a receiver key ✓', context);
    const b = box.seal('a receiver key ✓', context);
    expect(a).toMatch(/^v1\.[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(box.open(a, context)).toBe('a receiver key ✓');
    expect(box.open(b, context)).toBe('a receiver key ✓');
  });

  it('refuses another context, another key, and any tampering', () => {
    const sealed = box.seal('a receiver key', context);
    expect(() =>
      box.open(sealed, secretContext('0b5f4a3e-7c1d-4e2f-8a9b-0c1d2e3f4a5b', 'b')),
    ).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, context)).toThrow();
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => box.open(`v1.${raw.toString('base64')}`, context)).toThrow();
    expect(() => box.open('v2.abc', context)).toThrow(/format/);
    expect(() => box.open('v1.abc', context)).toThrow(/truncated/);
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });

  it('remembered, opens each ciphertext once, and never what did not open', () => {
    const opened: string[] = [];
    const counting: SecretBox = {
      seal: (plaintext, c) => box.seal(plaintext, c),
      open: (sealed, c) => (opened.push(sealed), box.open(sealed, c)),
    };
    const remembering = rememberOpened(counting);
    const a = remembering.seal('key a', context);
    const b = box.seal('key b', context);
    for (let i = 0; i < 3; i++) {
      expect(remembering.open(a, context)).toBe('key a');
      expect(remembering.open(b, context)).toBe('key b');
    }
    expect(opened).toEqual([a, b]);
    // Another context is another entry, and it still does not open, each time it is asked.
    const other = secretContext('0b5f4a3e-7c1d-4e2f-8a9b-0c1d2e3f4a5b', 'b');
    expect(() => remembering.open(a, other)).toThrow();
    expect(() => remembering.open(a, other)).toThrow();
    expect(opened).toEqual([a, b, a, a]);
  });
});

describe('the secrets key', () => {
  it('is generated into DATA_DIR/secrets-key (mode 0600) once, then reused', async () => {
    const dir = path.join(await tempDir(), 'nested');
    const first = await loadSecretsKey(dir, undefined);
    expect(first.generated).toBe(true);
    expect(first.key).toHaveLength(32);
    const file = path.join(dir, 'secrets-key');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const second = await loadSecretsKey(dir, undefined);
    expect(second.generated).toBe(false);
    expect(second.key.equals(first.key)).toBe(true);
    // Concurrent first starts agree on one key.
    const other = await tempDir();
    const keys = await Promise.all([1, 2, 3].map(() => loadSecretsKey(other, undefined)));
    expect(new Set(keys.map((k) => k.key.toString('hex'))).size).toBe(1);
  });

  it('comes from SECRETS_KEY when set, and a damaged file stops the start', async () => {
    const dir = await tempDir();
    const configured = randomBytes(32);
    const loaded = await loadSecretsKey(dir, configured);
    expect(loaded.key.equals(configured)).toBe(true);
    await expect(fs.stat(path.join(dir, 'secrets-key'))).rejects.toThrow();
    await fs.writeFile(path.join(dir, 'secrets-key'), 'c2hvcnQ=\n');
    await expect(loadSecretsKey(dir, undefined)).rejects.toThrow(/32 bytes/);
  });

  it('is parsed and checked by the configuration, with DELIVERY_LOG_RETENTION_DAYS', () => {
    const key = randomBytes(32);
    const config = loadConfig({ SECRETS_KEY: key.toString('base64') });
    expect(config.webhook.secretsKey?.equals(key)).toBe(true);
    expect(config.webhook.deliveryLogRetentionDays).toBe(7);
    expect(loadConfig({}).webhook.secretsKey).toBeUndefined();
    expect(loadConfig({ DELIVERY_LOG_RETENTION_DAYS: '30' }).webhook.deliveryLogRetentionDays).toBe(
      30,
    );
    expect(() => loadConfig({ SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(
      /SECRETS_KEY/,
    );
    expect(() => loadConfig({ SECRETS_KEY: 'not base64 at all!' })).toThrow(/SECRETS_KEY/);
    expect(() => loadConfig({ DELIVERY_LOG_RETENTION_DAYS: 'week' })).toThrow(
      /DELIVERY_LOG_RETENTION_DAYS/,
    );
  });
});
