/** The developer's own apps under `gateway dev`: `--app` naming and refusals, loopback-only registration. */
import { describe, expect, test } from "bun:test";
import { AppsFileError } from "../../src/server/apps/registry.ts";
import { devApps } from "../../src/server/dev-apps.ts";
import { appFromOrigin, DevAppError, keepLoopback, withOwnApps } from "../../src/server/dev-own-apps.ts";

describe("--app <origin>", () => {
  test.each([
    ["http://localhost:3000", "local-3000", "http://localhost:3000"],
    ["http://localhost:3000/", "local-3000", "http://localhost:3000"],
    ["http://127.0.0.1:5000", "local-5000", "http://127.0.0.1:5000"],
    ["https://localhost", "local-443", "https://localhost"],
    ["http://[::1]:8080", "local-8080", "http://[::1]:8080"],
  ])("%s is the app and public client %s, redirect URIs the page and /callback", (raw, id, origin) => {
    expect(appFromOrigin(raw)).toMatchObject({
      id,
      clients: [{ clientId: id, redirectUris: [`${origin}/`, `${origin}/callback`] }],
    });
    expect(appFromOrigin(raw).clients[0]!.clientSecret).toBeUndefined();
    expect(Object.keys(appFromOrigin(raw).types ?? {})).toContain("team");
  });

  test.each([
    ["localhost:3000", /must be an http\(s\) origin/],
    ["ftp://localhost:3000", /must be an http\(s\) origin/],
    ["http://localhost:3000/app", /no path\), got "http:\/\/localhost:3000\/app"$/],
    ["http://LOCALHOST:3000", /write it as "http:\/\/localhost:3000"/],
    ["https://app.example.com", /must be a loopback origin .* got "https:\/\/app.example.com"/],
    ["http://10.0.0.2:3000", /must be a loopback origin/],
  ])("%s is refused, naming what to write", (raw, message) => {
    expect(() => appFromOrigin(raw)).toThrow(DevAppError);
    expect(() => appFromOrigin(raw)).toThrow(message);
  });
});

describe("the apps file under gateway dev", () => {
  test("only loopback redirect URIs and origins are kept; each left-out one is named", () => {
    const { file, notices } = keepLoopback(
      {
        apps: [
          {
            id: "shop",
            clients: [
              {
                clientId: "shop-web",
                redirectUris: ["https://shop.example.com/callback", "http://localhost:3000/callback"],
                origins: ["https://admin.shop.example.com", "http://127.0.0.1:3001"],
              },
              { clientId: "shop-ios", redirectUris: ["com.example.shop:/cb"] },
              { clientId: "shop-server", redirectUris: ["http://127.0.0.1:4000/cb"], clientSecret: "s3cret" },
            ],
          },
        ],
      },
      "GATEWAY_CONFIG apps.json",
    );
    expect(file.apps[0]!.clients).toEqual([
      {
        clientId: "shop-web",
        redirectUris: ["http://localhost:3000/callback"],
        origins: ["http://127.0.0.1:3001"],
      },
      { clientId: "shop-server", redirectUris: ["http://127.0.0.1:4000/cb"], clientSecret: "s3cret" },
    ]);
    expect(notices).toEqual([
      'GATEWAY_CONFIG apps.json: client "shop-web": left out "https://shop.example.com/callback", "https://admin.shop.example.com" (gateway dev registers loopback http(s) addresses only)',
      'GATEWAY_CONFIG apps.json: client "shop-ios": left out "com.example.shop:/cb" (gateway dev registers loopback http(s) addresses only)',
      'GATEWAY_CONFIG apps.json: client "shop-ios" is not registered: no loopback redirect URI',
    ]);
  });

  test("dev's own app and client ids are refused by name; an id given twice is refused", () => {
    const dev = devApps("http://127.0.0.1:8787", "http://127.0.0.1:5173");
    for (const own of [
      { id: "demo", clients: [] },
      { id: "mine", clients: [{ clientId: "demo-web", redirectUris: ["http://localhost:3000/"] }] },
    ]) {
      expect(() => withOwnApps(dev, [own], "src")).toThrow(AppsFileError);
      expect(() => withOwnApps(dev, [own], "src")).toThrow(/is one of gateway dev's own app and client ids/);
    }
    const twice = [appFromOrigin("http://localhost:3000"), appFromOrigin("http://localhost:3000")];
    expect(() => withOwnApps(dev, twice, "src")).toThrow('src: app id "local-3000" appears twice');
    const merged = withOwnApps(dev, [appFromOrigin("http://localhost:3000")], "src");
    expect(merged.apps.map((app) => app.id)).toEqual(["demo", "local-3000"]);
  });
});
