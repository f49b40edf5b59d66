// Types of the untyped stemming and lemmatization packages the lexical analyzer uses.
declare module 'wink-porter2-stemmer' {
  const stem: (word: string) => string;
  export default stem;
}

declare module 'wink-lemmatizer' {
  const lemmatizer: {
    lemmatizeNoun(word: string): string;
    lemmatizeVerb(word: string): string;
    lemmatizeAdjective(word: string): string;
  };
  export default lemmatizer;
}

declare module 'snowball-stemmers' {
  const snowball: {
    algorithms(): string[];
    newStemmer(algorithm: string): { stem(word: string): string };
  };
  export default snowball;
}
