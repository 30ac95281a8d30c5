/**
 * Replay of back-channel logout tokens (OpenID Back-Channel Logout 1.0, 2.6): each accepted token's
 * `jti` is written to the database, so a copy replayed to any process or replica of the gateway is
 * refused. A `jti` is kept only until its token could not be accepted anyway (`expires_at`, chosen by
 * the caller), then deleted by a later claim: the table holds no more than the tokens of that window.
 */
import type { Storage } from "../db/sql.ts";

export class LogoutTokenJtis {
  constructor(private readonly storage: Storage) {}

  /** Records `jti` until `expiresAt`; false when it was already recorded (a replay). */
  claim(jti: string, expiresAt: number, now = Date.now()): Promise<boolean> {
    return this.storage.transaction(async (tx) => {
      await tx.run("DELETE FROM logout_tokens WHERE expires_at < $1", [now]);
      const added = await tx.run(
        "INSERT INTO logout_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING",
        [jti, expiresAt],
      );
      return added === 1;
    });
  }
}
