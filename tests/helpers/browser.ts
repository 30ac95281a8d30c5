// The scriptable browser lives beside the development provider (`gateway token` walks sign-in with it).
export * from "../../src/devidp/browser.ts";
