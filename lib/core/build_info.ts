/** Facts the single-file build defines (scripts/build.ts); from source they are absent. */
import { readFileSync } from 'node:fs';

declare const __MEWCODE_BUNDLE__: boolean | undefined;
declare const __MEWCODE_VERSION__: string | undefined;

/** True when running from dist/mewcode.mjs. */
export const IN_BUNDLE = typeof __MEWCODE_BUNDLE__ !== 'undefined' && __MEWCODE_BUNDLE__ === true;
/** The package version baked into the bundle. */
const BUNDLED_VERSION = typeof __MEWCODE_VERSION__ !== 'undefined' ? __MEWCODE_VERSION__ : undefined;

/** MewCode's version: baked into the bundle, read from package.json when running from source. */
export function version(): string {
  return (
    BUNDLED_VERSION ??
    (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  );
}
