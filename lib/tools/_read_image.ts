/**
 * read_file of a picture: an image block the model sees (lib/media/image.ts fits it to the
 * providers' limits) and a line saying what the file is and what is shown. Read lane.
 */
import type { FileHandle } from 'node:fs/promises';
import { fmtInt } from '../core/budget.ts';
import { quote } from '../core/text.ts';
import { fail, ok, type ToolResult } from '../core/tool.ts';
import type { Wording } from '../core/wording.ts';
import { imageForModel } from '../media/image.ts';

/** Larger picture files are refused before they are read. */
const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

export async function readImage(fh: FileHandle, shown: string, size: number, words: Wording): Promise<ToolResult> {
  if (size > MAX_IMAGE_FILE_BYTES)
    return fail(
      'too_large',
      `Cannot show ${quote(shown)}: a ${fmtInt(size)}-byte picture is over the ${fmtInt(MAX_IMAGE_FILE_BYTES)} read.`,
    );
  const bytes = await fh.readFile();
  const made = await imageForModel(bytes);
  if (!made.ok) return fail('binary', `Cannot show ${quote(shown)}: ${made.why}. Inspect it with bash (e.g. file).`);
  const { image, source, changed } = made.value;
  const what = `${source.format.toUpperCase()}, ${source.width}×${source.height}, ${fmtInt(source.bytes)} bytes`;
  const as = changed
    ? `; shown as ${image.mediaType.slice(6).toUpperCase()} ${image.width}×${image.height} (scaled down or re-encoded to fit the model's limits)`
    : '';
  const meta = {
    image: { ...source, shown: { mediaType: image.mediaType, width: image.width, height: image.height } },
  };
  return { ...ok(`Image ${quote(shown)}: ${what}${as}. ${words.imageShown}`, meta), images: [image] };
}
