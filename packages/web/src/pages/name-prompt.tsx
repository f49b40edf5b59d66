// The first thing a member without a name is asked (issue #42, item 10): an owner made by the operator without
// `--name` is named by their e-mail until they give one. Shown above every page until it is set; it blocks nothing.
import { useState } from 'preact/hooks';
import type { Profile, Session } from '@parley/contracts';
import { api } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorLine } from '../ui.tsx';
import { useAction } from '../use-action.ts';

/** No name given: blank, or the e-mail the server names a member by until they choose one. */
export function needsName(session: Session): boolean {
  const name = session.name.trim().toLowerCase();
  return name === '' || name === session.email.trim().toLowerCase();
}

export function NamePrompt({ onRenamed }: { onRenamed: (name: string) => void }) {
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => onRenamed((await api<Profile>('PUT', '/me/', { body: { name: name.trim() } })).name));
  };
  return (
    <form class="card name-prompt" aria-label="Your name" onSubmit={save}>
      <p>
        <strong>{t('What is your name?')}</strong> {t('Your teammates see it, and customers see it with your replies.')}
      </p>
      <div class="row wrap">
        <label class="field inline">
          <span>{t('Your name')}</span>
          <input aria-label="Your name" autocomplete="name" required maxLength={100} pattern=".*\S.*" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" aria-label="Save name" disabled={busy}>
          {t('Save name')}
        </button>
      </div>
      <ErrorLine error={error} />
    </form>
  );
}
