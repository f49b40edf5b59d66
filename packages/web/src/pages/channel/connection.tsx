// The channel form's Connection section: the API channel's id and example, a messenger's inbound URL and last
// error, the webhook the channel's events go to, and a messenger's credentials.
import type { Channel } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { CopyButton, Field, formatTime } from '../../ui.tsx';
import { CREDENTIAL_FIELDS } from '../channels.tsx';
import type { DraftFieldsProps } from './draft.ts';

export function ApiChannelHelp({ channel }: { channel: Channel }) {
  const curl = [
    `curl -X POST '${location.origin}/api/v1/chats/chat/send-message-universal' \\`,
    `  -H 'Authorization: <your API key>' -H 'Content-Type: application/json' \\`,
    `  -d '${JSON.stringify({ channel: 'custom', channelId: channel.id, externalChatId: 'customer-1', role: 'user', text: 'Hello!' })}'`,
  ].join('\n');
  return (
    <section class="card">
      <p>
        {t('Channel ID')}: <code>{channel.id}</code>
      </p>
      <h3>{t('Send a message through the API')}</h3>
      <pre aria-label="curl example">{curl}</pre>
      <CopyButton text={curl} label="Copy the curl command" />
    </section>
  );
}

export /** A messenger channel: where the messenger posts (and Meta's verify token), and what it last refused. */
function MessengerHelp({ channel }: { channel: Channel }) {
  return (
    <section class="card" aria-label="Messenger connection">
      {channel.inboundUrl && (
        <p>
          {t('Inbound URL')}: <code aria-label="Inbound URL">{channel.inboundUrl}</code>
        </p>
      )}
      {channel.verifyToken && (
        <p>
          {t('Verify token')}: <code aria-label="Verify token">{channel.verifyToken}</code>
        </p>
      )}
      {channel.type === 'telegram' || channel.type === 'viber' ? <p class="muted small">{t('The webhook is registered with the messenger on connect.')}</p> : null}
      {channel.connectorError ? (
        <p role="alert" class="error">
          {t('Last messenger error')} ({formatTime(channel.connectorError.at)}): {channel.connectorError.message}
        </p>
      ) : (
        <p class="muted small">{t('No messenger errors')}</p>
      )}
    </section>
  );
}

export /** Where events of the channel are posted, and the secret they are signed with. */
function WebhookFields({ channel, draft, set }: DraftFieldsProps & { channel: Channel }) {
  return (
    <>
      <Field label={t('Webhook URL')}>
        <input aria-label="Webhook URL" type="url" value={draft.webhookUrl} onInput={(e) => set({ webhookUrl: e.currentTarget.value })} />
      </Field>
      <Field label={t('Signing secret')}>
        <input
          aria-label="Signing secret"
          type="password"
          autocomplete="off"
          minLength={16}
          placeholder={channel.webhookSecretSet ? t('a key is stored') : t('written, never shown')}
          value={draft.webhookSecret}
          onInput={(e) => set({ webhookSecret: e.currentTarget.value })}
        />
      </Field>
    </>
  );
}

/** The messenger's own credentials, written and never shown; a stored set shows only as a placeholder. */
export function CredentialFields({ channel, draft, set }: DraftFieldsProps & { channel: Channel }) {
  const credentialFields = CREDENTIAL_FIELDS[channel.type] ?? [];
  return (
    <>
      {credentialFields.map((field) => (
        <Field label={field.label} key={field.key}>
          <input
            type={field.secret ? 'password' : 'text'}
            autocomplete="off"
            placeholder={channel.credentialsSet ? t('a key is stored') : ''}
            value={draft.credentials[field.key] ?? ''}
            onInput={(e) => set({ credentials: { ...draft.credentials, [field.key]: e.currentTarget.value } })}
          />
        </Field>
      ))}
    </>
  );
}
