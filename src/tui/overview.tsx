/** Overview: the gateway's counters at a glance. */
import { Box } from "ink";
import type { Overview } from "./client.ts";
import { overviewLines } from "./format.ts";
import { Text } from "./text.tsx";

export function OverviewScreen(props: { overview: Overview | undefined; height: number }) {
  return (
    <Box flexDirection="column" height={props.height}>
      <Text bold>Overview</Text>
      {props.overview ? (
        overviewLines(props.overview).map(([label, value]) => (
          <Text key={label} wrap="truncate-end">
            {`  ${label.padEnd(18)}`}
            <Text bold>{value}</Text>
          </Text>
        ))
      ) : (
        <Text dimColor> loading…</Text>
      )}
    </Box>
  );
}
