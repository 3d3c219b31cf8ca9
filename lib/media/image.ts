/**
 * A picture as the model is shown it: PNG, JPEG, GIF (its first frame) or WebP, fitted to what both
 * providers take — at most 1568 px on the long edge and 1.15 megapixels (Anthropic's advice; larger
 * ones are scaled down by the provider anyway, and cost more), and 5 MiB of base64 — scaled down and
 * re-encoded until it fits. sharp (libvips, prebuilt) does the decoding, chosen by a measured table
 * (docs/media.md); it refuses a header claiming more than 100 megapixels before decoding anything and
 * gives up after 10 s. sharp is a native module loaded on first use: where it cannot load (the
 * single-file bundle without it beside), a picture already within the limits is shown as it is (its
 * size read from its header by image-size) and a larger one is refused, naming the limit. Read lane.
 */
import { createRequire } from 'node:module';
import { imageSize } from 'image-size';
import type { ToolImage } from '../core/tool_result.ts';

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export const IMAGE_LIMITS = {
  maxEdge: 1568,
  maxPixels: 1_150_000,
  maxBase64Bytes: 5 * 1024 * 1024,
  /** A header claiming more is refused before decoding (a decompression bomb). */
  maxInputPixels: 100_000_000,
  timeoutSeconds: 10,
} as const;

/** The format the bytes start like, if a picture the model can be shown. */
export function imageFormatOf(head: Uint8Array): ImageFormat | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  const ascii = b.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'webp';
  return undefined;
}

export interface ShownImage {
  image: ToolImage;
  /** What the file is. */
  source: { format: ImageFormat; width: number; height: number; bytes: number };
  /** Scaled down or re-encoded to fit. */
  changed: boolean;
}

const base64Bytes = (n: number) => 4 * Math.ceil(n / 3);

type Sharp = typeof import('sharp').default;
let sharpModule: Sharp | null | undefined;

/**
 * sharp, loaded once; null where it cannot load here. Required from this module's place (in the
 * single-file bundle: the file's), not imported: a bundle's lazily compiled parts have no dynamic import.
 */
function loadSharp(): Sharp | null {
  if (sharpModule !== undefined) return sharpModule;
  try {
    const s = createRequire(import.meta.url)('sharp') as Sharp;
    s.cache(false); // no decoded-image cache kept in a long-running runtime
    s.concurrency(1); // one libvips thread per picture: the read pool already spreads the work
    sharpModule = s;
  } catch {
    sharpModule = null;
  }
  return sharpModule;
}

/** The picture in `bytes`, fitted for the model, or why it cannot be shown. */
export async function imageForModel(
  bytes: Buffer,
): Promise<{ ok: true; value: ShownImage } | { ok: false; why: string }> {
  const format = imageFormatOf(bytes.subarray(0, 16));
  if (!format) return { ok: false, why: 'it is not a PNG, JPEG, GIF or WebP picture' };
  const sharp = loadSharp();
  if (!sharp) return asItIs(bytes, format);
  try {
    return { ok: true, value: await fitted(sharp, bytes, format) };
  } catch (e) {
    return { ok: false, why: `it cannot be decoded as ${format.toUpperCase()} (${firstLine(e)})` };
  }
}

const firstLine = (e: unknown) => String((e as Error).message ?? e).split('\n')[0];

async function fitted(sharp: Sharp, bytes: Buffer, format: ImageFormat): Promise<ShownImage> {
  const L = IMAGE_LIMITS;
  const input = { limitInputPixels: L.maxInputPixels, failOn: 'none', animated: false } as const;
  const meta = await sharp(bytes, input).metadata(); // the header only
  const w0 = meta.autoOrient?.width ?? meta.width;
  const h0 = meta.autoOrient?.height ?? meta.height;
  if (!w0 || !h0) throw new Error('no size in its header');
  if (w0 * h0 > L.maxInputPixels) throw new Error(`${w0}×${h0} is over ${L.maxInputPixels / 1e6} megapixels`);
  const source = { format, width: w0, height: h0, bytes: bytes.length };
  const scale = Math.min(1, L.maxEdge / Math.max(w0, h0), Math.sqrt(L.maxPixels / (w0 * h0)));
  const animated = (meta.pages ?? 1) > 1;
  const rotated = (meta.orientation ?? 1) > 1;
  if (
    scale === 1 &&
    !animated &&
    !rotated &&
    base64Bytes(bytes.length) <= L.maxBase64Bytes &&
    (await whole(sharp, bytes, meta))
  )
    return { image: toolImage(format, bytes, w0, h0), source, changed: false };
  let [w, h] = [Math.max(1, Math.floor(w0 * scale)), Math.max(1, Math.floor(h0 * scale))];
  // Transparency needs PNG or WebP; anything else goes as JPEG, a fraction of the size.
  const tries: [ImageFormat, object][] = meta.hasAlpha
    ? [
        ['png', {}],
        ['webp', { quality: 85 }],
        ['webp', { quality: 70 }],
      ]
    : [
        ['jpeg', { quality: 85, mozjpeg: true }],
        ['jpeg', { quality: 70, mozjpeg: true }],
        ['jpeg', { quality: 55, mozjpeg: true }],
      ];
  for (let round = 0; round < 4; round++) {
    for (const [to, options] of tries) {
      const out = await sharp(bytes, input)
        .rotate()
        .resize(w, h, { fit: 'inside', withoutEnlargement: true })
        .toFormat(to, options)
        .timeout({ seconds: L.timeoutSeconds })
        .toBuffer({ resolveWithObject: true });
      if (base64Bytes(out.data.length) <= L.maxBase64Bytes)
        return { image: toolImage(to, out.data, out.info.width, out.info.height), source, changed: true };
    }
    [w, h] = [Math.max(1, Math.floor(w * 0.75)), Math.max(1, Math.floor(h * 0.75))];
  }
  throw new Error(`it does not fit in ${L.maxBase64Bytes / 1024 / 1024} MiB even at ${w}×${h}`);
}

/**
 * Whether the picture decodes whole, as a provider will decode it: a cut or damaged file sent as it
 * is would make every later request of the conversation fail. One whose header claims another size
 * than its frame (a GIF's screen) is not sent as it is either. Otherwise it is re-encoded from what
 * decodes.
 */
async function whole(sharp: Sharp, bytes: Buffer, frame: { width?: number; height?: number }): Promise<boolean> {
  try {
    const header = imageSize(bytes);
    if (header.width !== frame.width || header.height !== frame.height) return false;
    await sharp(bytes, { failOn: 'error', limitInputPixels: IMAGE_LIMITS.maxInputPixels }).stats();
    return true;
  } catch {
    return false;
  }
}

/** Without sharp: shown as it is when it is within the limits, else refused with the limit named. */
function asItIs(bytes: Buffer, format: ImageFormat): { ok: true; value: ShownImage } | { ok: false; why: string } {
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch (e) {
    return { ok: false, why: `its header cannot be read (${firstLine(e)})` };
  }
  const { width = 0, height = 0 } = size;
  const L = IMAGE_LIMITS;
  const over =
    Math.max(width, height) > L.maxEdge || width * height > L.maxPixels
      ? `${width}×${height} is over the ${L.maxEdge} px and ${L.maxPixels / 1e6} megapixels shown`
      : base64Bytes(bytes.length) > L.maxBase64Bytes
        ? `${bytes.length} bytes is over the ${L.maxBase64Bytes / 1024 / 1024} MiB of base64 shown`
        : undefined;
  if (over || width === 0 || height === 0)
    return {
      ok: false,
      why: `${over ?? 'it has no size'}, and the image library (sharp) that would scale it down is not installed beside MewCode`,
    };
  return {
    ok: true,
    value: {
      image: toolImage(format, bytes, width, height),
      source: { format, width, height, bytes: bytes.length },
      changed: false,
    },
  };
}

function toolImage(format: ImageFormat, data: Buffer, width: number, height: number): ToolImage {
  return { mediaType: `image/${format}`, data: data.toString('base64'), width, height };
}

/** A notebook output's picture (base64), fitted as a file's is; why not, as text. */
export async function imageFromBase64(base64: string, _mediaType: string): Promise<ToolImage | string> {
  const made = await imageForModel(Buffer.from(base64, 'base64'));
  return made.ok ? made.value.image : made.why;
}
