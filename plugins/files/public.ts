/** What other plugins may use of the files plugin: the image helpers (sizes from headers, thumbnails). */
export { IMAGE_TYPES, MAX_INPUT_PIXELS, THUMBNAIL_SIDES, imageSize, isImage, makeThumbnail, type ThumbnailSize } from './images.ts';
