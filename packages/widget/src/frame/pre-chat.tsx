// The pre-chat form (when the channel turns it on): the visitor's name and e-mail before the first message,
// which become the chat's name and e-mail.
import type { WidgetSession } from '@parley/contracts';
import type { Ref } from 'preact';
import { useState } from 'preact/hooks';
import { updateDetails } from './api.ts';

export interface Details {
  name: string | null;
  email: string | null;
}

export function PreChatForm(props: {
  rules: NonNullable<WidgetSession['preChatForm']>;
  initial: Details;
  token: () => string;
  firstField: Ref<HTMLInputElement>;
  onDone: (details: Details) => void;
}) {
  const { rules } = props;
  const [name, setName] = useState(props.initial.name ?? '');
  const [email, setEmail] = useState(props.initial.email ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { ...(name.trim() ? { name: name.trim() } : {}), ...(email.trim() ? { email: email.trim() } : {}) };
      props.onDone(await updateDetails(props.token(), body));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const optional = (rule: 'required' | 'optional') => (rule === 'optional' ? ' (optional)' : '');
  return (
    <form class="prechat" aria-label="Your details" onSubmit={submit}>
      <p>Tell us who you are, and we'll get back to you.</p>
      <label>
        {`Name${optional(rules.name)}`}
        <input
          aria-label="Name"
          autocomplete="name"
          maxLength={200}
          required={rules.name === 'required'}
          value={name}
          ref={props.firstField}
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {`Email${optional(rules.email)}`}
        <input
          type="email"
          aria-label="Email"
          autocomplete="email"
          maxLength={320}
          required={rules.email === 'required'}
          value={email}
          onInput={(event) => setEmail((event.target as HTMLInputElement).value)}
        />
      </label>
      {error !== null ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        Start chat
      </button>
    </form>
  );
}
