// One section of the Settings page: a region named by its heading, with what it sets and its own form.
import type { ComponentChildren } from 'preact';
import { t } from '../../i18n.ts';

export function SettingsSection({ name, hint, children }: { name: string; hint: string; children: ComponentChildren }) {
  const id = `settings-${name.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section class="card settings-section" aria-labelledby={id}>
      <h2 id={id}>{t(name)}</h2>
      <p class="muted small">{t(hint)}</p>
      {children}
    </section>
  );
}
