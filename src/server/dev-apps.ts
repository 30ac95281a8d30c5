/**
 * What `gateway dev` registers: one app, "demo", with the gateway's landing page and the demo app as
 * its clients, and a sample of every apps-file feature. `gateway token` reads the same clients.
 */
import type { AppsFile } from "./apps/model.ts";

export const DEMO_CLIENT_ID = "demo-web";

/** The names the consent page shows for the development clients (the provider's `client_name`). */
export const DEV_CLIENT_NAMES: Readonly<Record<string, string>> = {
  "gateway-landing": "Session gateway home page",
  [DEMO_CLIENT_ID]: "Demo app",
};

export function devApps(gatewayUrl: string, demoUrl: string): AppsFile {
  return {
    apps: [
      {
        id: "demo",
        clients: [
          { clientId: "gateway-landing", redirectUris: [`${gatewayUrl}/`] },
          {
            clientId: DEMO_CLIENT_ID,
            redirectUris: [`${demoUrl}/`],
            postLogoutRedirectUris: [`${demoUrl}/`],
          },
        ],
        budget: { requestsPerMinute: 6000 },
        types: {
          team: { defaultRole: "writer", visibility: "members", grantCeiling: "admin" },
          project: { visibility: "members" },
          board: { visibility: "unlisted" },
          album: { visibility: "discoverable" },
          feed: { reserved: true },
        },
        statics: [{ type: "feed", slug: "global", name: "Global feed", visibility: "discoverable" }],
        sharedTables: { posts: { onMemberRemove: "hide" }, photos: { onMemberRemove: "retain" } },
      },
    ],
  };
}
