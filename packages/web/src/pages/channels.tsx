// Channels: every channel with kind and state; Connect channel with the fields each kind needs.
import { useEffect, useState } from 'preact/hooks';
import type { Channel, ChannelKind } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { useAction } from '../use-action.ts';
import { t } from '../i18n.ts';
import { navigate } from '../router.ts';
import { ErrorLine, Link } from '../ui.tsx';
import { AdminOnlyNote, useCanManage } from '../role.tsx';

export const KINDS: { kind: ChannelKind; label: string }[] = [
  { kind: 'custom', label: 'API' },
  { kind: 'widget', label: 'Website widget' },
  { kind: 'telegram', label: 'Telegram' },
  { kind: 'whatsapp', label: 'WhatsApp' },
  { kind: 'facebook', label: 'Facebook Messenger' },
  { kind: 'instagram', label: 'Instagram' },
  { kind: 'viber', label: 'Viber' },
];

export function kindLabel(kind: string): string {
  return KINDS.find((k) => k.kind === kind)?.label ?? kind;
}

/** Messenger credentials by kind (docs/architecture.md, Messenger connectors → connect bodies); all write-only. */
export const CREDENTIAL_FIELDS: Partial<Record<ChannelKind, { key: string; label: string; secret: boolean }[]>> = {
  telegram: [{ key: 'botToken', label: 'Bot token (from BotFather)', secret: true }],
  whatsapp: [
    { key: 'phoneNumberId', label: 'Phone number ID', secret: false },
    { key: 'accessToken', label: 'Access token', secret: true },
    { key: 'appSecret', label: 'App secret', secret: true },
    { key: 'verifyToken', label: 'Verify token', secret: false },
  ],
  facebook: [
    { key: 'pageId', label: 'Page ID', secret: false },
    { key: 'pageAccessToken', label: 'Page access token', secret: true },
    { key: 'appSecret', label: 'App secret', secret: true },
    { key: 'verifyToken', label: 'Verify token', secret: false },
  ],
  instagram: [
    { key: 'accountId', label: 'Account ID', secret: false },
    { key: 'accessToken', label: 'Access token', secret: true },
    { key: 'appSecret', label: 'App secret', secret: true },
    { key: 'verifyToken', label: 'Verify token', secret: false },
  ],
  viber: [{ key: 'authToken', label: 'Auth token', secret: true }],
};

export function channelPath(channel: Pick<Channel, 'type' | 'id'>): string {
  return `/channels/${channel.type}/${encodeURIComponent(channel.id)}`;
}

function ConnectForm({ onCancel }: { onCancel: () => void }) {
  const [kind, setKind] = useState<ChannelKind>('custom');
  const [name, setName] = useState('');
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const { busy, error, run } = useAction();
  const fields = CREDENTIAL_FIELDS[kind] ?? [];

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const body: Record<string, unknown> = { name };
      if (fields.length > 0) body.credentials = Object.fromEntries(fields.map((f) => [f.key, credentials[f.key] ?? '']));
      const channel = await api<Channel>('POST', `/channel/${kind}/connect/`, { body });
      navigate(channelPath(channel));
    });
  };

  return (
    <form class="card" aria-label="Connect channel" onSubmit={submit}>
      <label class="field">
        <span>{t('Kind')}</span>
        <select aria-label="Kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as ChannelKind)}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{t('Name')}</span>
        <input aria-label="Name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      {fields.map((field) => (
        <label class="field" key={`${kind}-${field.key}`}>
          <span>{field.label}</span>
          <input
            type={field.secret ? 'password' : 'text'}
            autocomplete="off"
            required
            value={credentials[field.key] ?? ''}
            onInput={(e) => setCredentials({ ...credentials, [field.key]: e.currentTarget.value })}
          />
        </label>
      ))}
      <ErrorLine error={error} />
      <div class="row">
        <button type="submit" aria-label="Connect" disabled={busy}>
          {t('Connect')}
        </button>
        <button type="button" aria-label="Cancel" onClick={onCancel}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  );
}

export function ChannelsPage() {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [connecting, setConnecting] = useState(false);
  const canManage = useCanManage();

  useEffect(() => {
    api<{ channels: Channel[] }>('GET', '/channels/all/').then((r) => setChannels(r.channels), (e) => setError(errorText(e)));
  }, []);

  return (
    <section>
      <div class="row spread">
        <h1>{t('Channels')}</h1>
        {canManage && (
          <button type="button" aria-label="Connect channel" aria-expanded={connecting} onClick={() => setConnecting(!connecting)}>
            {t('Connect channel')}
          </button>
        )}
      </div>
      {!canManage && <AdminOnlyNote text="Your role (agent) reads channels; an admin or the owner connects and changes them." />}
      {connecting && <ConnectForm onCancel={() => setConnecting(false)} />}
      <ErrorLine error={error} />
      {channels && (
        <table class="list">
          <thead>
            <tr>
              <th>{t('Name')}</th>
              <th>{t('Kind')}</th>
              <th>{t('Status')}</th>
            </tr>
          </thead>
          <tbody>
            {channels.map((channel) => (
              <tr key={channel.id}>
                <td>
                  <Link href={channelPath(channel)}>{channel.name}</Link>
                </td>
                <td>{kindLabel(channel.type)}</td>
                <td>
                  {channel.disableAgentResponses ? t('responses disabled') : channel.settings.isActive ? `${t('Agent')}: ${t('on')}` : t('agent off')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
