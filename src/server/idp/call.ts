/**
 * A provider that cannot be reached, or answers what no provider should, is answered 502
 * `idp_unavailable`: the caller can retry, and the cause (the endpoint, its status or network error,
 * the duration) goes to the log line only.
 */
import { Refusal } from "../domain/refusal.ts";
import { IdpUnavailable } from "./hydra.ts";

/** The refusal for a failed provider call; the call's facts are for the log only. */
export function idpRefusal(cause: IdpUnavailable): Refusal {
  return new Refusal("idp_unavailable", {
    log: { cause: cause.message, fields: cause.call ? { provider: cause.call } : undefined },
  });
}

/** Runs a provider call, turning "unreachable or answered garbage" into 502 idp_unavailable. */
export async function idp<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof IdpUnavailable) throw idpRefusal(error);
    throw error;
  }
}
