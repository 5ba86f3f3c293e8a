import { defineErrors } from '../../core/errors.ts';

/** The attachments plugin's codes, beyond the kernel's. */
export const AttachmentErrors = defineErrors({
  range_not_satisfiable: {
    status: 416,
    when: 'The `Range` asked for starts past the end of the file',
    create: (size: number) => ({ detail: `The file has ${size} bytes; the range asked for starts past its end.`, headers: { 'Content-Range': `bytes */${size}` } }),
  },
});
