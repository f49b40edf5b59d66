// What a question asks for, from its question words (English): a price, a time or duration, a place, or how to do
// something. The knowledge-base engine's answer rule (retrieval.ts) trusts an entry a little more when the
// customer's question asks for the same kind of thing as the entry's question or a synonym, and a little less when
// both ask for something and the kinds differ ("how much is shipping" against "how long does shipping take").
// Other languages have no kinds: their questions are ranked by words alone, under the lexical rule.

export type QuestionKind = 'price' | 'time' | 'place' | 'howTo';

const KINDS: [QuestionKind, RegExp][] = [
  ['price', /\bhow much\b|\bcosts?\b|\bprices?\b|\bpricing\b|\bfees?\b|\bcharges?\b|\bcharged\b|£|€|\$|\bexpensive\b|\bcheap\b|\bpay\b|\bfree\b/],
  ['time', /\bwhen\b|\bwhat time\b|\bhow long\b|\bhow many days\b|\bhow soon\b|\bhours\b|\bdays?\b|\bweeks?\b|\btomorrow\b|\btoday\b|\bturnaround\b/],
  ['place', /\bwhere\b|\baddress\b|\bdirections\b|\blocated\b/],
  ['howTo', /\bhow (?:do|can|should) (?:i|we|you)\b|\bhow to\b/],
];

/** The kinds a text asks for (none for a text in another language than English, or one with no question word). */
export function questionKinds(text: string, english: boolean): ReadonlySet<QuestionKind> {
  if (!english) return new Set();
  const lower = text.toLowerCase();
  return new Set(KINDS.filter(([, pattern]) => pattern.test(lower)).map(([kind]) => kind));
}

/** 1 when both ask for a kind of thing they share, −1 when both ask for something and share none, else 0. */
export function kindsAgreement(asked: ReadonlySet<QuestionKind>, entry: ReadonlySet<QuestionKind>): number {
  if (asked.size === 0 || entry.size === 0) return 0;
  for (const kind of asked) if (entry.has(kind)) return 1;
  return -1;
}
