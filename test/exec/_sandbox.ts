/** The runtime the sandbox tests attack: bubblewrap on, commands granted, no worker pool. */
import { runtimeAt } from '../helpers/runtime.ts';

/** A sandboxed runtime at `root` (closed when the test file ends, as every `runtimeAt` is). */
export const sandboxAt = (root: string, options: Parameters<typeof runtimeAt>[1] = {}) =>
  runtimeAt(root, { workers: 0, sandbox: true, permissions: { allow: { run: true } }, ...options });
