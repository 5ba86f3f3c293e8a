/** The boundary parameter as the multipart parser (formidable) reads it, so both agree on which value is judged. */
const BOUNDARY_PARAM = /boundary=(?:"([^"]+)"|([^;]+))/i;
/** RFC 2046 §5.1.1: 1 to 70 characters from this set, the last one not a space. */
const VALID_BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/**
 * Why a multipart/form-data Content-Type cannot frame a body, or null when its boundary is usable.
 * Judged before reading: without a usable boundary no part can ever be found, and the parser would read on to the end.
 */
export function boundaryProblem(contentType: string): string | null {
  const match = BOUNDARY_PARAM.exec(contentType);
  if (!match) return 'multipart/form-data needs a boundary parameter (Content-Type: multipart/form-data; boundary=…).';
  const boundary = match[1] ?? match[2];
  if (!VALID_BOUNDARY.test(boundary)) return 'The multipart boundary must be 1 to 70 characters (letters, digits, \'()+_,-./:=? and inner spaces).';
  return null;
}
