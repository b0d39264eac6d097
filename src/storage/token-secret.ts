/**
 * @module storage/token-secret
 *
 * The secret that signs login tokens, when none is configured: made once per data directory
 * and kept in `DIR/jwt-secret` (64 hex characters, mode 0600), written atomically
 * (storage/atomic-file) so a crash during the first start cannot leave it empty.
 *
 * A file holding fewer than 32 bytes (empty: what a non-atomic first write interrupted by a
 * crash left behind in earlier builds) cannot have signed any token — the token module refuses
 * a key that short, so no server ever ran with it — so it is replaced by a new secret with a
 * warning, instead of stopping every start. Replacing a secret that did sign tokens would only
 * log their holders out (tokens live 15 minutes), but that never happens here.
 *
 * May import: node:crypto, node:fs, node:path, storage/atomic-file.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from './atomic-file.ts';

/** The shortest token key the token module accepts (auth/token). */
const MIN_SECRET_BYTES = 32;

export interface SecretLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The token secret kept in `dataDir` (made, or remade when too short to have been used). */
export function tokenSecretOf(dataDir: string, logger: SecretLogger): string {
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(kept) >= MIN_SECRET_BYTES) return kept;
    logger.warn(
      { file, bytes: Buffer.byteLength(kept) },
      `the token secret file holds ${Buffer.byteLength(kept)} bytes, fewer than the ${MIN_SECRET_BYTES} a token key needs, so it never signed a token (an interrupted first write leaves it empty): replacing it with a new secret`,
    );
  }
  const secret = randomBytes(32).toString('hex');
  writeFileAtomically(file, secret);
  return secret;
}
