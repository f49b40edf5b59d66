// The exact-match key of a question: case, punctuation and spacing do not count ("Where is my order?" and
// "where is my order" are the same question).

export function questionKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The keys of an entry: its question and each synonym, without blanks or repeats. */
export function questionKeys(question: string, synonyms: readonly string[]): string[] {
  return [...new Set([question, ...synonyms].map(questionKey).filter((key) => key.length > 0))];
}
