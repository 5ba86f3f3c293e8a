import sharp from 'sharp';
import type { Readable } from 'node:stream';

/** The images editors may embed and thumbnails are made of (API.md: png, jpeg, webp, gif). */
export const IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

export const isImage = (mime: string | null | undefined): boolean => !!mime && IMAGE_TYPES.includes(mime);

/**
 * The most pixels an image may have to be decoded (a thumbnail made): 100 megapixels. A small file can announce
 * billions of pixels (a decompression bomb); sharp refuses such an image before allocating anything for it.
 */
export const MAX_INPUT_PIXELS = 100_000_000;

/** Longest side of each thumbnail size, in pixels. */
export const THUMBNAIL_SIDES = { small: 200, large: 800 } as const;
export type ThumbnailSize = keyof typeof THUMBNAIL_SIDES;

/**
 * Width and height as the image is shown (EXIF orientations 5–8 turn it a quarter), read from the first bytes of
 * the file: the header is enough, nothing is decoded. Null when the header does not tell (not an image, or truncated
 * before its dimensions).
 */
export async function imageSize(head: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const meta = await sharp(head, { limitInputPixels: false }).metadata();
    if (!meta.width || !meta.height) return null;
    const turned = (meta.orientation ?? 1) >= 5;
    return turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch {
    return null;
  }
}

/**
 * A WebP thumbnail of an image, upright (EXIF orientation applied), fitting inside the size's square and never
 * enlarged. Rejects an image above MAX_INPUT_PIXELS, or bytes sharp cannot decode.
 */
export async function makeThumbnail(input: Readable | Buffer, size: ThumbnailSize): Promise<Buffer> {
  const side = THUMBNAIL_SIDES[size];
  const options = { limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true };
  const image = Buffer.isBuffer(input) ? sharp(input, options) : sharp(options);
  const thumbnail = image.rotate().resize(side, side, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 });
  if (!Buffer.isBuffer(input)) {
    input.once('error', (err) => thumbnail.destroy(err));
    input.pipe(thumbnail);
  }
  return thumbnail.toBuffer();
}
