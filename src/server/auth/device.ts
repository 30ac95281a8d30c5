/**
 * A coarse description of the browser that signed in, from its User-Agent: "Chrome on Linux",
 * "Safari on iPhone". Only the browser family and the platform are kept (never versions or the full
 * string), so the session list helps a person recognise a device without the gateway storing a
 * fingerprint. Rules are ordered: browsers that embed another's token (Edge and Opera say "Chrome",
 * Chrome says "Safari") are tested first. Anything unknown reads "Unknown browser" / "unknown system".
 */

const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  // "HeadlessChrome/" too: no word boundary before its "Chrome".
  [/Chrom(e|ium)\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/^curl\//, "curl"],
];

const PLATFORMS: Array<[RegExp, string]> = [
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** At most this much of the header is read: a longer one is someone's experiment, not a browser. */
const MAX_READ = 512;

export function describeDevice(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? "").slice(0, MAX_READ);
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? "Unknown browser";
  const platform = PLATFORMS.find(([pattern]) => pattern.test(ua))?.[1] ?? "unknown system";
  return `${browser} on ${platform}`;
}
