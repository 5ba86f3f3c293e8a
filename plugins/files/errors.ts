import { defineErrors } from '../../core/errors.ts';

/** The files plugin's codes, beyond the kernel's (413 for an image above `maxBytes` comes from the router). */
export const FileErrors = defineErrors({
  unsupported_media_type: {
    status: 415,
    when: 'The bytes are not a PNG, JPEG, WebP or GIF image whose dimensions can be read',
    create: (detail: string) => detail,
  },
});
