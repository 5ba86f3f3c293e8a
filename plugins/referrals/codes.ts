import { randomInt } from 'node:crypto';

/** Upper-case letters and digits without the look-alikes 0/O, 1/I/L: a code survives being read aloud or retyped. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

export function randomCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** How a code a user typed or pasted is stored and looked up. */
export function normalizeCode(input: string): string {
  return input.trim().toUpperCase();
}
