/**
 * ID token signatures (OpenID Connect Core 3.1.3.7 and 10.1):
 *
 * - Asymmetric algorithms (RS*, PS*, ES*, EdDSA) verify against the provider's JWKS. On a `kid` the
 *   cached set does not know (the provider rotated its key), the set is fetched again, at most once a
 *   second: a token arriving inside that cooldown waits out its rest (under a second), and the set is
 *   fetched and the token verified once more before it is refused, so a rotation is never refused, and
 *   unknown `kid`s cannot make the gateway fetch more than once a second. The JWKS URL may redirect
 *   within its origin.
 * - HMAC (HS256/384/512) ID tokens are signed with the client secret: accepted for confidential clients
 *   only, verified with their secret. `none` is never accepted.
 *
 * A signature or claim that does not verify is `IdTokenInvalid` (502 `id_token_invalid`); a key set
 * that cannot be fetched is the provider being unavailable.
 */
import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors,
  type JWKSCacheInput,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwksCache,
  jwtVerify,
} from "jose";
import { IdpUnavailable } from "./provider-fetch.ts";

export class IdTokenInvalid extends Error {}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const HMAC = ["HS256", "HS384", "HS512"];
/** The least time between two fetches of one key set. */
const COOLDOWN_MS = 1000;

interface KeySet {
  getKey: JWTVerifyGetKey;
  /** Filled by jose: `uat` is when the set was last fetched. */
  fetched: { uat?: number };
}

export interface VerifyOptions {
  issuer: string;
  jwksUri: string | undefined;
  clientId: string;
  /** The confidential client's secret, the key of HMAC-signed ID tokens. */
  clientSecret: string | undefined;
}

export class IdTokenVerifier {
  private readonly sets = new Map<string, KeySet>();

  constructor(private readonly timeoutMs: number) {}

  async verify(idToken: string, options: VerifyOptions): Promise<JWTPayload> {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(idToken).alg;
    } catch {
      throw new IdTokenInvalid("the ID token is not a JWS");
    }
    const hmac = typeof alg === "string" && HMAC.includes(alg);
    if (hmac && options.clientSecret === undefined)
      throw new IdTokenInvalid(`an ${alg} ID token needs a client secret, and this client has none`);
    if (!hmac && !options.jwksUri) throw new IdpUnavailable("the provider publishes no jwks_uri");
    try {
      const { payload } = hmac
        ? await jwtVerify(idToken, new TextEncoder().encode(options.clientSecret), this.claims(options, HMAC))
        : await this.verifyWithKeySet(idToken, options.jwksUri!, this.claims(options, ASYMMETRIC));
      return payload;
    } catch (error) {
      if (error instanceof IdpUnavailable) throw error;
      if (error instanceof errors.JWKSTimeout) throw new IdpUnavailable("the provider's key set timed out");
      throw new IdTokenInvalid(
        `the ID token does not verify (${(error as Error).name}: ${(error as Error).message})`,
      );
    }
  }

  private claims(options: VerifyOptions, algorithms: string[]) {
    // OpenID Connect Core 2: `exp` is required; a token without one would never expire.
    return {
      issuer: options.issuer,
      audience: options.clientId,
      clockTolerance: 30,
      algorithms,
      requiredClaims: ["exp"],
    };
  }

  /** A `kid` the set does not know, inside the fetch cooldown: wait out its rest, then once more. */
  private async verifyWithKeySet(idToken: string, uri: string, claims: ReturnType<typeof this.claims>) {
    const set = this.keySet(uri);
    try {
      return await jwtVerify(idToken, set.getKey, claims);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      const rest = (set.fetched.uat ?? 0) + COOLDOWN_MS - Date.now();
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      return await jwtVerify(idToken, set.getKey, claims);
    }
  }

  private keySet(uri: string): KeySet {
    let set = this.sets.get(uri);
    if (!set) {
      const fetched: KeySet["fetched"] = {};
      const getKey = createRemoteJWKSet(new URL(uri), {
        cooldownDuration: COOLDOWN_MS,
        timeoutDuration: this.timeoutMs,
        [customFetch]: sameOriginFetch,
        [jwksCache]: fetched as JWKSCacheInput,
      });
      set = { getKey, fetched };
      this.sets.set(uri, set);
    }
    return set;
  }
}

/** fetch that follows redirects within the URL's origin only (at most 3). */
async function sameOriginFetch(url: string, init: RequestInit): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= 3; hop++) {
    let res: Response;
    try {
      res = await fetch(current, { ...init, redirect: "manual" });
    } catch (error) {
      throw new IdpUnavailable(`the key set could not be fetched (${(error as Error).name})`);
    }
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) return res;
    const next = new URL(location, current);
    if (next.origin !== new URL(current).origin) return res;
    await res.body?.cancel();
    current = next.toString();
  }
  throw new IdpUnavailable("the key set redirects too often");
}
