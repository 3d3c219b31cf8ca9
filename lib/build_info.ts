/** Facts the single-file build defines (scripts/build.ts); from source they are absent. */
declare const __MEWCODE_BUNDLE__: boolean | undefined;
declare const __MEWCODE_VERSION__: string | undefined;

/** True when running from dist/mewcode.mjs. */
export const IN_BUNDLE = typeof __MEWCODE_BUNDLE__ !== 'undefined' && __MEWCODE_BUNDLE__ === true;
/** The package version baked into the bundle. */
export const BUNDLED_VERSION = typeof __MEWCODE_VERSION__ !== 'undefined' ? __MEWCODE_VERSION__ : undefined;
