/**
 * Result values for helpers: `{ ok: true, value } | { ok: false, error }`. Plain objects, so they
 * survive `postMessage` between the main thread and the worker pool (class instances do not).
 */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

export const okValue = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const errValue = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });
