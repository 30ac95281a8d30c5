/** The coarse device description kept at sign-in: browser family and platform only, never versions. */
import { expect, test } from "bun:test";
import { describeDevice } from "../../src/server/auth/device.ts";

const UAS: Array<[string, string]> = [
  [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    "Chrome on Linux",
  ],
  [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
    "Chrome on Linux",
  ],
  [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
    "Edge on Windows",
  ],
  ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0", "Firefox on macOS"],
  [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    "Safari on iPhone",
  ],
  [
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
    "Chrome on Android",
  ],
  [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0",
    "Opera on Windows",
  ],
  ["curl/8.5.0", "curl on unknown system"],
  ["Bun/1.4.5", "Unknown browser on unknown system"],
  ["", "Unknown browser on unknown system"],
];

test("browser family and platform from common User-Agents", () => {
  for (const [ua, expected] of UAS) expect([ua, describeDevice(ua)]).toEqual([ua, expected]);
  expect(describeDevice(null)).toBe("Unknown browser on unknown system");
});

test("a huge or hostile header gives a short fixed-vocabulary answer", () => {
  expect(describeDevice(`${"x".repeat(100_000)} Chrome/1 Linux`)).toBe("Unknown browser on unknown system");
  expect(describeDevice("\u0000\u001b[31m Firefox/1 <script>")).toBe("Firefox on unknown system");
});
