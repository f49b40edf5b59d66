// Language of a knowledge base → PostgreSQL text-search configuration of its entries. The result goes into
// SQL as a bound `::regconfig` parameter, and only ever one of TEXT_SEARCH_CONFIGS.

/** Configurations that PostgreSQL 15+ and PGlite both ship (`estonian` is left out: it arrived in PostgreSQL 16). */
export const TEXT_SEARCH_CONFIGS = [
  'simple',
  'arabic',
  'armenian',
  'basque',
  'catalan',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hindi',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'serbian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
  'yiddish',
] as const;
export type TextSearchConfig = (typeof TEXT_SEARCH_CONFIGS)[number];

// A Map, not an object literal, so inherited names such as `constructor` never match.
const BY_LANGUAGE = new Map<string, TextSearchConfig>([
  ['ar', 'arabic'],
  ['hy', 'armenian'],
  ['eu', 'basque'],
  ['ca', 'catalan'],
  ['da', 'danish'],
  ['nl', 'dutch'],
  ['en', 'english'],
  ['fi', 'finnish'],
  ['fr', 'french'],
  ['de', 'german'],
  ['el', 'greek'],
  ['hi', 'hindi'],
  ['hu', 'hungarian'],
  ['id', 'indonesian'],
  ['ga', 'irish'],
  ['it', 'italian'],
  ['lt', 'lithuanian'],
  ['ne', 'nepali'],
  ['no', 'norwegian'],
  ['nb', 'norwegian'],
  ['nn', 'norwegian'],
  ['pt', 'portuguese'],
  ['ro', 'romanian'],
  ['ru', 'russian'],
  ['sr', 'serbian'],
  ['es', 'spanish'],
  ['sv', 'swedish'],
  ['ta', 'tamil'],
  ['tr', 'turkish'],
  ['yi', 'yiddish'],
]);

/** `en` → `english`, `pt-BR` → `portuguese`; any other code → `simple` (no stemming, no stop words). */
export function textSearchConfig(language: string): TextSearchConfig {
  const primary = language.trim().toLowerCase().split('-')[0] ?? '';
  return BY_LANGUAGE.get(primary) ?? 'simple';
}
