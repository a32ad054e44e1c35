/**
 * Tools that do (almost) nothing, for `npm run bench`: the physical limit a real tool is
 * measured against, on the same server and transport. Registered only with the hidden CLI flag
 * `--bench-tools`; never part of `allTools`, so agents never see them.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../tool.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The floor of any tool call: argument checking, dispatch and the transport's round trip. */
export const benchNoop = defineTool({
  name: 'bench_noop',
  title: 'Benchmark: no-op',
  description: 'Benchmark only: does nothing and answers "ok".',
  input: {},
  annotations: READ_ONLY,
  async run() {
    return 'ok';
  },
});

/** The floor of a big answer: moving `bytes` of text through the same transport. */
export const benchEchoSize = defineTool({
  name: 'bench_echo_size',
  title: 'Benchmark: text of a given size',
  description: 'Benchmark only: answers a text of exactly `bytes` ASCII characters.',
  input: { bytes: z.number().int().min(0).max(64 * 1024 * 1024).describe('Length of the answer') },
  annotations: READ_ONLY,
  async run({ bytes }) {
    // JSON-like text, so the transport escapes it no more and no less than a real answer.
    const unit = '{"name": "x", "type": "util"},\n';
    return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
  },
});

export const benchTools: ToolDefinition[] = [benchNoop, benchEchoSize] as unknown as ToolDefinition[];
