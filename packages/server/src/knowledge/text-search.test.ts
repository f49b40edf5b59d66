import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEXT_SEARCH_CONFIGS, textSearchConfig } from './text-search.ts';

test('ISO 639-1 codes map to their PostgreSQL configuration', () => {
  const expected: Record<string, string> = {
    en: 'english',
    ru: 'russian',
    de: 'german',
    fr: 'french',
    es: 'spanish',
    it: 'italian',
    pt: 'portuguese',
    nl: 'dutch',
    sv: 'swedish',
    fi: 'finnish',
    da: 'danish',
    no: 'norwegian',
    nb: 'norwegian',
    nn: 'norwegian',
    hu: 'hungarian',
    ro: 'romanian',
    tr: 'turkish',
    ar: 'arabic',
    el: 'greek',
    id: 'indonesian',
    ga: 'irish',
    lt: 'lithuanian',
    ne: 'nepali',
    sr: 'serbian',
    ta: 'tamil',
    hy: 'armenian',
    eu: 'basque',
    ca: 'catalan',
    hi: 'hindi',
    yi: 'yiddish',
  };
  for (const [language, config] of Object.entries(expected)) assert.equal(textSearchConfig(language), config, language);
});

test('a region subtag and letter case do not matter', () => {
  assert.equal(textSearchConfig('pt-BR'), 'portuguese');
  assert.equal(textSearchConfig('en-US'), 'english');
  assert.equal(textSearchConfig('EN'), 'english');
  assert.equal(textSearchConfig(' ru '), 'russian');
});

test('anything else is simple', () => {
  const others = ['', 'xx', 'zh', 'ja', 'uk', 'et', 'eng', 'english', 'constructor', '__proto__', "en'; drop table x; --"];
  for (const language of others) assert.equal(textSearchConfig(language), 'simple', language);
});

test('every answer is on the allow-list', () => {
  const allowed = new Set<string>(TEXT_SEARCH_CONFIGS);
  for (const language of ['en', 'ru', 'yi', 'xx', 'pt-BR', 'toString']) {
    assert.ok(allowed.has(textSearchConfig(language)), language);
  }
  assert.equal(new Set(TEXT_SEARCH_CONFIGS).size, TEXT_SEARCH_CONFIGS.length);
});
