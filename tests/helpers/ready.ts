/** Waits (at most about 10 s) until a gateway process started elsewhere answers `path` with 2xx. */
export async function waitReady(url: string, path = "/readyz"): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const ok = await fetch(`${url}${path}`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await Bun.sleep(25);
  }
  throw new Error(`${url}${path} never answered`);
}
