import { describe, expect, test } from "bun:test";
import { ConfigError, isLoopbackHost, loadConfig, loadDevConfig } from "../../src/server/config.ts";

describe("configuration", () => {
  test("defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      adminPort: 8788,
      adminHost: "127.0.0.1",
      adminToken: undefined,
      databasePath: "./data/gateway.db",
      oidcIssuer: undefined,
      idpAdminUrl: undefined,
      welcomeCreditMicros: 5_000_000,
      cookieSecure: true,
      cookieSameSite: "lax",
    });
  });

  test("development is only gateway dev's: no environment variable turns it on", () => {
    expect(loadConfig({}).development).toBe(false);
    expect(
      loadConfig({ DEVELOPMENT: "true", GATEWAY_DEVELOPMENT: "1", NODE_ENV: "development" }).development,
    ).toBe(false);
    expect(loadDevConfig({ DATABASE_PATH: ":memory:" }).development).toBe(true);
  });

  test("IDP_ADMIN_URL defaults to OIDC_ISSUER; trailing slashes dropped", () => {
    const config = loadConfig({ OIDC_ISSUER: "https://auth.example.com/" });
    expect(config.oidcIssuer).toBe("https://auth.example.com");
    expect(config.idpAdminUrl).toBe("https://auth.example.com");
  });

  test("endpoint URLs are kept exactly, trailing slash included (DOT's /o/revoke_token/ is not /o/revoke_token)", () => {
    const config = loadConfig({
      IDP_REVOCATION_URL: "https://auth.example.com/o/revoke_token/",
      IDP_INTROSPECTION_URL: "https://auth.example.com/o/introspect/",
    });
    expect(config.idpRevocationUrl).toBe("https://auth.example.com/o/revoke_token/");
    expect(config.idpIntrospectionUrl).toBe("https://auth.example.com/o/introspect/");
  });

  test("WELCOME_CREDIT_USD is a decimal in micro-dollars", () => {
    expect(loadConfig({ WELCOME_CREDIT_USD: "2.5" }).welcomeCreditMicros).toBe(2_500_000);
    expect(loadConfig({ WELCOME_CREDIT_USD: "0" }).welcomeCreditMicros).toBe(0);
  });

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ ADMIN_PORT: "-1" }, "ADMIN_PORT"],
    [{ OIDC_ISSUER: "not a url" }, "OIDC_ISSUER"],
    [{ OIDC_ISSUER: "ftp://x.example" }, "OIDC_ISSUER"],
    [{ KRATOS_PUBLIC_URL: "::" }, "KRATOS_PUBLIC_URL"],
    [{ COOKIE_SECURE: "maybe" }, "COOKIE_SECURE"],
    [{ COOKIE_SAMESITE: "loose" }, "COOKIE_SAMESITE"],
    [{ COOKIE_SAMESITE: "none", COOKIE_SECURE: "false" }, "COOKIE_SAMESITE"],
    [{ WELCOME_CREDIT_USD: "-1" }, "WELCOME_CREDIT_USD"],
    [{ WELCOME_CREDIT_USD: "five" }, "WELCOME_CREDIT_USD"],
    [{ SESSION_SECRET: "short" }, "SESSION_SECRET"],
    [{ TRUSTED_PROXIES: "10.0.0.1, proxy.example" }, "TRUSTED_PROXIES"],
    [{ TRUSTED_PROXIES: "10.0.0.0/33" }, "TRUSTED_PROXIES"],
    [{ TRUSTED_PROXIES: "10.0.0.1:8080" }, "TRUSTED_PROXIES"],
  ];
  for (const [env, variable] of bad) {
    test(`bad ${variable}=${Object.values(env)[0]} stops with a line naming it`, () => {
      let caught: unknown;
      try {
        loadConfig(env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe(variable);
      expect((caught as Error).message).toContain(variable);
      expect((caught as Error).message).not.toContain("\n");
    });
  }
});

describe("loopback hosts (gateway dev binds nothing else)", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.255.255.254", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.10", false],
    ["128.0.0.1", false],
    ["127.0.0.256", false],
    ["127.0.0", false],
    ["127.0.0.1.example.com", false],
    ["localhost.example.com", false],
    ["", false],
  ])("%s → %p", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
