// The customer in view (issue #34, item 5): who the chat is with, as the chat knows them — the name and e-mail
// (from the widget's pre-chat form, `identify`, or the messenger), the channel, since when, the page a widget visitor
// opened the widget on, and the customer's other chats (`GET /chat/customer/{chatId}/`); for admins, the customer's
// data exported or erased (customer-data.tsx).
import type { ChatCustomer, InboxChat } from '@parley/contracts';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.ts';
import { t } from '../i18n.ts';
import { formatTime, Link } from '../ui.tsx';
import { kindLabel } from './channels.tsx';
import { CustomerData } from './customer-data.tsx';

export function CustomerCard({ chat, onErased }: { chat: InboxChat; onErased: () => void }) {
  const [customer, setCustomer] = useState<ChatCustomer | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Again when the chat's e-mail changes (the visitor gave it): other chats may match it now.
  useEffect(() => {
    let cancelled = false;
    setCustomer(null);
    setError(null);
    api<ChatCustomer>('GET', `/chat/customer/${chat.id}/`).then(
      (found) => !cancelled && setCustomer(found),
      (failure: unknown) => !cancelled && setError(errorText(failure)),
    );
    return () => {
      cancelled = true;
    };
  }, [chat.id, chat.email]);

  return (
    <aside class="card customer" aria-label="Customer">
      <dl class="pairs">
        <dt>{t('Name')}</dt>
        <dd aria-label="Customer name">{chat.dialogName || t('not given')}</dd>
        <dt>{t('Email')}</dt>
        <dd aria-label="Customer email">{chat.email ? <a href={`mailto:${chat.email}`}>{chat.email}</a> : t('not given')}</dd>
        <dt>{t('Channel')}</dt>
        <dd>
          {chat.channelSettingsName ?? ''} ({kindLabel(chat.channelName)})
        </dd>
        <dt>{t('First message')}</dt>
        <dd>{formatTime(chat.createdAt)}</dd>
        {customer?.page ? (
          <>
            <dt>{t('Page')}</dt>
            <dd aria-label="Customer page">
              <a href={customer.page} target="_blank" rel="noopener noreferrer">
                {customer.page}
              </a>
            </dd>
          </>
        ) : null}
      </dl>
      {error ? <p role="alert">{error}</p> : null}
      <CustomerData chatId={chat.id} onErased={onErased} />
      {customer && customer.otherChats.length > 0 ? (
        <>
          <h3>{t('Other chats')}</h3>
          <ul aria-label="Other chats">
            {customer.otherChats.map((other) => (
              <li key={other.id}>
                <Link href={`/inbox/${other.id}`}>{other.dialogName || t('not given')}</Link> · {other.channelSettingsName ?? ''} (
                {kindLabel(other.channelName)}) · {formatTime(other.lastMessageDate)}
                {other.text ? <span class="muted"> · {other.text}</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </aside>
  );
}
