/** The name shown, wherever rich text and its authors appear, for a person whose account was erased. */
export const FORMER_MEMBER = 'Former member';
