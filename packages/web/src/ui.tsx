// Small shared pieces: links, error and status lines, a field with a label.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { setLang, t, useLang, type Lang } from './i18n.ts';
import { onLinkClick } from './router.ts';

export function Link({ href, children, label, current }: { href: string; children: ComponentChildren; label?: string; current?: boolean }) {
  return (
    <a href={href} aria-label={label} aria-current={current ? 'page' : undefined} onClick={(event) => onLinkClick(event, href)}>
      {children}
    </a>
  );
}

export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function StatusLine({ text }: { text: string | null }) {
  return (
    <p class="status" role="status">
      {text ?? ''}
    </p>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}

export function LanguageSelect() {
  const lang = useLang();
  return (
    <label class="lang">
      <span>{t('Language')}</span>
      <select aria-label="Language" value={lang} onChange={(event) => setLang(event.currentTarget.value as Lang)}>
        <option value="en">English</option>
        <option value="ru">Русский</option>
      </select>
    </label>
  );
}


/** Copies `text` to the clipboard; says "Copied" for a moment (or how to copy by hand when the browser refuses). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
    setTimeout(() => setCopied(null), 2_000);
  };
  return (
    <span class="copy">
      <button type="button" class="small" aria-label={label} onClick={() => void copy()}>
        {t('Copy')}
      </button>
      <span role="status">{copied === null ? '' : copied ? t('Copied') : t('Select the text and copy it')}</span>
    </span>
  );
}
