/**
 * Trigrams as the index keys them: three bytes with ASCII letters lower-cased, packed in 24 bits.
 * One key space serves case-sensitive and case-insensitive searches alike: folding only merges keys,
 * so a file holding a literal's bytes always holds the literal's folded trigrams. Bytes are not
 * decoded: a non-ASCII byte is its own key byte. Pure functions; run in workers and inline.
 */

const foldByte = (b: number) => (b >= 65 && b <= 90 ? b + 32 : b);
const FOLD = Uint8Array.from({ length: 256 }, (_, b) => foldByte(b));

// One bitset of all 2^24 keys per thread (2 MiB), cleared after each file by the keys it set.
let seen: Uint32Array | undefined;

/** The distinct trigram keys of `bytes`, in first-seen order. */
export function trigramsOf(bytes: Uint8Array): number[] {
  const out = new Uint32Array(Math.max(0, bytes.length - 2));
  return [...out.subarray(0, trigramsInto(bytes, out, 0))];
}

/**
 * Writes the distinct trigram keys of `bytes` (first-seen order) into `out` from `at`, and returns
 * where they end; `out` has room for `bytes.length - 2` more. Straight into the typed array the
 * segment is sorted in: no per-file array, nothing for the collector.
 */
export function trigramsInto(bytes: Uint8Array, out: Uint32Array, at: number): number {
  seen ??= new Uint32Array(1 << 19);
  const bits = seen;
  const n = bytes.length;
  if (n < 3) return at;
  const fold = FOLD;
  const from = at;
  let k = ((fold[bytes[0] as number] as number) << 8) | (fold[bytes[1] as number] as number);
  for (let i = 2; i < n; i++) {
    k = ((k << 8) | (fold[bytes[i] as number] as number)) & 0xffffff;
    const w = k >>> 5;
    const m = 1 << (k & 31);
    const word = bits[w] as number;
    if (word & m) continue;
    bits[w] = word | m;
    out[at++] = k;
  }
  for (let i = from; i < at; i++) bits[(out[i] as number) >>> 5] = 0;
  return at;
}

/** How many distinct trigram keys `bytes` holds (to size a buffer exactly for a large file). */
export function trigramCount(bytes: Uint8Array): number {
  seen ??= new Uint32Array(1 << 19);
  const bits = seen;
  const n = bytes.length;
  if (n < 3) return 0;
  let count = 0;
  for (let pass = 0; pass < 2; pass++) {
    let k = (foldByte(bytes[0] as number) << 8) | foldByte(bytes[1] as number);
    for (let i = 2; i < n; i++) {
      k = ((k << 8) | (FOLD[bytes[i] as number] as number)) & 0xffffff;
      const m = 1 << (k & 31);
      if (pass === 1) bits[k >>> 5] = 0;
      else if (!((bits[k >>> 5] as number) & m)) {
        bits[k >>> 5] = (bits[k >>> 5] as number) | m;
        count++;
      }
    }
  }
  return count;
}

/**
 * The trigram keys every occurrence of `literal` contains. Case-insensitive: only trigrams of ASCII
 * bytes, because the searcher folds only ASCII (a non-ASCII character may match other bytes).
 */
export function literalTrigrams(literal: string, caseInsensitive: boolean): number[] {
  const bytes = Buffer.from(literal, 'utf8');
  const keys = new Set<number>();
  for (let i = 0; i + 2 < bytes.length; i++) {
    const a = bytes[i] as number;
    const b = bytes[i + 1] as number;
    const c = bytes[i + 2] as number;
    if (caseInsensitive && (a > 127 || b > 127 || c > 127)) continue;
    keys.add((foldByte(a) << 16) | (foldByte(b) << 8) | foldByte(c));
  }
  return [...keys];
}
