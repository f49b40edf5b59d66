// English and Russian. Visible labels are translated; the accessible names of docs/architecture.md stay in English
// (elements of the contract carry an English aria-label).
import { useEffect, useState } from 'preact/hooks';
import { ru } from './i18n/ru.ts';

export type Lang = 'en' | 'ru';
const STORAGE_KEY = 'parley.lang';

function initialLang(): Lang {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'ru') return stored;
  return (navigator.language || 'en').toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

let lang: Lang = initialLang();
const listeners = new Set<(lang: Lang) => void>();
document.documentElement.lang = lang;

export function currentLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  lang = next;
  localStorage.setItem(STORAGE_KEY, next);
  document.documentElement.lang = next;
  for (const listener of listeners) listener(next);
}

/** The text in the current language (English is the key). */
export function t(text: string): string {
  return lang === 'ru' ? (ru[text] ?? text) : text;
}

/** Re-renders the component when the language changes. */
export function useLang(): Lang {
  const [value, setValue] = useState(lang);
  useEffect(() => {
    listeners.add(setValue);
    return () => void listeners.delete(setValue);
  }, []);
  return value;
}
