/**
 * Title words. Each title is `<Word> <noun> <n>`: one of 100 six-letter words, one of 30
 * four-letter nouns and the row's serial. A six-letter word can only occur in a title as that
 * word, so `q=<word>` matches about 1 % of the titles.
 */
const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';

function sixLetterWords(n: number): string[] {
  const words = new Set<string>();
  for (let i = 0; words.size < n; i++) {
    const c = (k: number) => CONSONANTS[(i * (7 + 2 * k) + k * 5) % CONSONANTS.length];
    const v = (k: number) => VOWELS[Math.floor(i / (k + 1)) % VOWELS.length];
    words.add(c(0) + v(0) + c(1) + v(1) + c(2) + v(2));
  }
  return [...words];
}

export const TITLE_WORDS = sixLetterWords(100);
export const NOUNS = [
  'plan', 'note', 'task', 'memo', 'deal', 'item', 'lead', 'case', 'goal', 'idea', 'form', 'spec', 'test', 'demo', 'card',
  'file', 'list', 'page', 'post', 'risk', 'step', 'team', 'tool', 'unit', 'bill', 'view', 'wiki', 'work', 'zone', 'port',
];
