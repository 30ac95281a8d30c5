/** Which cookie names are the gateway's own (never forwarded upstream, never set by an upstream). */
import { describe, expect, test } from "bun:test";
import {
  gatewayCookieMatcher,
  mayRelaySetCookie,
  withoutCookies,
} from "../../src/server/auth/gateway-cookies.ts";

const plain = gatewayCookieMatcher("sg_session", "sg_consent");
const secure = gatewayCookieMatcher("__Host-sg_session", "__Secure-sg_consent");

describe("gateway cookie names", () => {
  test.each([
    ["sg_session", true],
    ["sg_session_0", true],
    ["sg_session_15", true],
    ["sg_consent", true],
    ["__Host-sg_session", true],
    ["__HOST-sg_session_2", true],
    ["__secure-sg_consent", true],
    ["sg_session_x", false],
    ["sg_sessionx", false],
    ["xsg_session", false],
    ["ory_kratos_session", false],
    ["csrf_token_abc", false],
  ])("%s → %p in either cookie mode", (name, own) => {
    expect(plain(name)).toBe(own);
    expect(secure(name)).toBe(own);
  });

  test("withoutCookies keeps the others verbatim, drops nameless pairs, and is null when nothing is left", () => {
    expect(withoutCookies("a=1; sg_session=s; b=2=3; sg_session_0=c; =x; sg_consent=n", plain)).toBe(
      "a=1; b=2=3",
    );
    expect(withoutCookies("sg_session=s", plain)).toBeNull();
    expect(withoutCookies(null, plain)).toBeNull();
  });

  test("mayRelaySetCookie refuses the gateway's names and nameless cookies", () => {
    expect(mayRelaySetCookie("ory_kratos_session=k; Path=/; HttpOnly", plain)).toBe(true);
    expect(mayRelaySetCookie("sg_session=x; Path=/", plain)).toBe(false);
    expect(mayRelaySetCookie(" __Host-sg_session_1=x; Secure", plain)).toBe(false);
    expect(mayRelaySetCookie("=sg_session=x", plain)).toBe(false);
    expect(mayRelaySetCookie("sg_session", plain)).toBe(false);
  });
});
