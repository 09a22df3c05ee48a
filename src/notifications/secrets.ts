import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import { TtlCache } from '../cache.ts';
import { loadOrCreateSecretFile } from '../secret-file.ts';

/**
 * Encryption of receivers' authKeys at rest: AES-256-GCM with a random 96-bit nonce, bound to
 * the registration it belongs to by the additional authenticated data (`accountId/clientId`), so
 * a ciphertext copied onto another registration does not open. Stored as
 * `v1.<base64 nonce | tag | ciphertext>`.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws when the ciphertext was not sealed with this key and context. */
  open(sealed: string, context: string): string;
}

const VERSION = 'v1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  const keyBuffer = Buffer.from(key);
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyBuffer, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed, context) {
      if (!sealed.startsWith(VERSION)) throw new Error('unknown secret format');
      const raw = Buffer.from(sealed.slice(VERSION.length), 'base64');
      if (raw.length < NONCE_BYTES + TAG_BYTES) throw new Error('truncated secret');
      const decipher = createDecipheriv('aes-256-gcm', keyBuffer, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

/** How long, and how many, opened keys `rememberOpened` keeps. */
const OPENED_TTL_MS = 10 * 60_000;
const OPENED_MAX = 10_000;

/**
 * A box that remembers what it opened for a while: every delivery carries a copy of its
 * registration's sealed key, so a dispatcher opens the same few ciphertexts thousands of times
 * a second. Keyed by ciphertext and context (a ciphertext is never reused: each seal has its
 * own nonce), so a changed key is a new entry; what does not open is not remembered.
 */
export function rememberOpened(box: SecretBox): SecretBox {
  const opened = new TtlCache<string, string>(OPENED_TTL_MS, OPENED_MAX);
  return {
    seal: (plaintext, context) => box.seal(plaintext, context),
    open(sealed, context) {
      const key = `${context}\n${sealed}`;
      let plaintext = opened.get(key);
      if (plaintext === undefined) {
        plaintext = box.open(sealed, context);
        opened.set(key, plaintext);
      }
      return plaintext;
    },
  };
}

/** The additional authenticated data of a registration's key (and of its deliveries' copies). */
export const secretContext = (accountId: string, clientId: string) => `${accountId}/${clientId}`;

interface Logger {
  warn(obj: object, msg?: string): void;
}

/**
 * The secrets key: `SECRETS_KEY` when configured, else the one in `DATA_DIR/secrets-key`
 * (generated with mode 0600 on first use), the same pattern as the development token secret.
 * Several instances sharing a database must share the key, so they need `SECRETS_KEY`.
 */
export async function loadSecretsKey(
  dataDir: string,
  configured: Uint8Array | undefined,
  logger?: Logger,
): Promise<{ key: Buffer; generated: boolean; file?: string }> {
  if (configured) return { key: Buffer.from(configured), generated: false };
  const file = path.join(dataDir, 'secrets-key');
  const { value: key, generated } = await loadOrCreateSecretFile(
    file,
    () => randomBytes(32).toString('base64') + '\n',
    (text) => {
      const key = Buffer.from(text, 'base64');
      if (key.length !== 32) throw new Error(`${file} does not hold 32 bytes in base64`);
      return key;
    },
  );
  logger?.warn(
    { file, generated },
    'receiver keys are encrypted with the key stored in the data directory; set SECRETS_KEY when several instances share a database',
  );
  return { key, generated, file };
}
