import { errors } from "../http/errors.ts";
import { IdpUnavailable } from "./hydra.ts";

/** Runs a provider call, turning "unreachable or answered garbage" into 502 idp_unavailable. */
export async function idp<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof IdpUnavailable) throw errors.idpUnavailable(error);
    throw error;
  }
}
