// CRM: connect HubSpot or Pipedrive (the token is checked by the CRM and never shown again), choose the channels
// each connection applies to, see its last sync and its failures, disconnect. Accessible names: docs/decisions.md.
import { useEffect, useState } from 'preact/hooks';
import type { Channel, CrmConnection, CrmKind, CrmSync } from '@parley/contracts';
import { api, errorText } from '../api.ts';
import { useAction } from '../use-action.ts';
import { t } from '../i18n.ts';
import { ErrorLine, formatTime, Link, StatusLine } from '../ui.tsx';

const CRM_LABELS: Record<CrmKind, string> = { hubspot: 'HubSpot', pipedrive: 'Pipedrive' };

/** "All channels", or a choice of them; null = all. */
function ChannelChoice({ channels, value, onChange }: { channels: Channel[]; value: string[] | null; onChange: (value: string[] | null) => void }) {
  return (
    <fieldset class="field">
      <legend>{t('Channels')}</legend>
      <label>
        <input type="checkbox" aria-label="All channels" checked={value === null} onChange={(e) => onChange(e.currentTarget.checked ? null : [])} />{' '}
        {t('All channels')}
      </label>
      {value !== null &&
        channels.map((channel) => (
          <label key={channel.id}>
            <input
              type="checkbox"
              aria-label={channel.name}
              checked={value.includes(channel.id)}
              onChange={(e) => onChange(e.currentTarget.checked ? [...value, channel.id] : value.filter((id) => id !== channel.id))}
            />{' '}
            {channel.name}
          </label>
        ))}
    </fieldset>
  );
}

function SyncLine({ sync }: { sync: CrmSync }) {
  return (
    <span>
      <span class={`status-${sync.status}`}>{t(sync.status)}</span> · <Link href={`/inbox/${sync.chatId}`}>{sync.dialogName}</Link> ·{' '}
      {formatTime(sync.updatedAt)}
      {sync.dealId && ` · ${t('Deal')} ${sync.dealId}`}
      {sync.error && (
        <>
          {' '}
          · <span>{sync.error}</span>
        </>
      )}
    </span>
  );
}

function ConnectForm({ channels, onConnected }: { channels: Channel[]; onConnected: () => void }) {
  const [kind, setKind] = useState<CrmKind>('hubspot');
  const [token, setToken] = useState('');
  const [companyDomain, setCompanyDomain] = useState('');
  const [channelIds, setChannelIds] = useState<string[] | null>(null);
  const { busy, error, run } = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const body = kind === 'pipedrive' ? { token, companyDomain, channelIds } : { token, channelIds };
      await api<CrmConnection>('POST', `/crm/${kind}/connect/`, { body });
      setToken('');
      onConnected();
    });
  };

  return (
    <form class="card" aria-label="Connect CRM" onSubmit={submit}>
      <label class="field">
        <span>CRM</span>
        <select aria-label="CRM" value={kind} onChange={(e) => setKind(e.currentTarget.value as CrmKind)}>
          {(Object.keys(CRM_LABELS) as CrmKind[]).map((k) => (
            <option key={k} value={k}>
              {CRM_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{kind === 'hubspot' ? t('Private app token') : t('API token')}</span>
        <input type="password" aria-label="Token" autocomplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
      </label>
      {kind === 'pipedrive' && (
        <label class="field">
          <span>{t('Company domain')} (…pipedrive.com)</span>
          <input aria-label="Company domain" required value={companyDomain} onInput={(e) => setCompanyDomain(e.currentTarget.value)} />
        </label>
      )}
      <ChannelChoice channels={channels} value={channelIds} onChange={setChannelIds} />
      <ErrorLine error={error} />
      <button type="submit" aria-label="Connect CRM" disabled={busy}>
        {t('Connect CRM')}
      </button>
    </form>
  );
}

function ConnectionCard({ connection, channels, onChanged }: { connection: CrmConnection; channels: Channel[]; onChanged: () => void }) {
  const [channelIds, setChannelIds] = useState<string[] | null>(connection.channelIds);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const save = async () => {
    try {
      // A channel deleted since is no longer offered: it is dropped from the choice.
      const existing = channelIds === null ? null : channelIds.filter((id) => channels.some((channel) => channel.id === id));
      await api('PUT', `/crm/${connection.id}/`, { body: { channelIds: existing } });
      setStatus(t('Saved'));
      setError(null);
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const disconnect = async () => {
    try {
      await api('DELETE', `/crm/${connection.id}/`);
      onChanged();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <article class="card" aria-label={`${CRM_LABELS[connection.kind]}: ${connection.name}`}>
      <h2>
        {CRM_LABELS[connection.kind]} · {connection.name}
      </h2>
      <p class="muted small">
        {t('Connected')} {formatTime(connection.createdAt)} · {t('token stored, never shown')}
      </p>
      <ChannelChoice channels={channels} value={channelIds} onChange={setChannelIds} />
      <div class="row">
        <button type="button" aria-label="Save channels" onClick={() => void save()}>
          {t('Save')}
        </button>
        <button type="button" aria-label="Disconnect" aria-expanded={confirming} onClick={() => setConfirming(true)}>
          {t('Disconnect')}
        </button>
      </div>
      {confirming && (
        <div class="row">
          <span>{t('Disconnect this CRM?')}</span>
          <button type="button" aria-label="Confirm disconnect" onClick={() => void disconnect()}>
            {t('Disconnect')}
          </button>
          <button type="button" aria-label="Cancel" onClick={() => setConfirming(false)}>
            {t('Cancel')}
          </button>
        </div>
      )}
      <StatusLine text={status} />
      <ErrorLine error={error} />
      <h3>{t('Last sync')}</h3>
      <p aria-label="Last sync">{connection.lastSync ? <SyncLine sync={connection.lastSync} /> : <span class="muted">{t('No syncs yet')}</span>}</p>
      <h3>
        {t('Failed syncs')} ({connection.failedCount})
      </h3>
      {connection.recentFailures.length === 0 ? (
        <p class="muted">{t('No failures')}</p>
      ) : (
        <ul aria-label="Failed syncs">
          {connection.recentFailures.map((sync) => (
            <li key={sync.chatId}>
              <SyncLine sync={sync} />
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

export function CrmPage() {
  const [connections, setConnections] = useState<CrmConnection[] | null>(null);
  const [channels, setChannels] = useState<Channel[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      const result = await api<{ connections: CrmConnection[] }>('GET', '/crm/all/');
      setConnections(result.connections);
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => {
    void load();
    api<{ channels: Channel[] }>('GET', '/channels/all/').then((r) => setChannels(r.channels), () => undefined);
  }, []);

  return (
    <section>
      <div class="row spread">
        <h1>CRM</h1>
        <button type="button" aria-label="Refresh" onClick={() => void load()}>
          ↻
        </button>
      </div>
      <p class="muted">{t('When a chat is marked done, its contact, a deal and the transcript go to each CRM connected for its channel.')}</p>
      <ConnectForm channels={channels} onConnected={() => void load()} />
      <ErrorLine error={error} />
      {connections?.length === 0 && <p class="muted">{t('No CRM connected')}</p>}
      {connections?.map((connection) => (
        <ConnectionCard key={`${connection.id}-${connection.updatedAt}`} connection={connection} channels={channels} onChanged={() => void load()} />
      ))}
    </section>
  );
}
