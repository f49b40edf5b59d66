// The customer in view (issue #34, item 5): who the chat is with, as the chat knows them — the name and e-mail
// (from the widget's pre-chat form, `identify`, or the messenger), the channel, and since when.
import type { InboxChat } from '@parley/contracts';
import { t } from '../i18n.ts';
import { formatTime } from '../ui.tsx';
import { kindLabel } from './channels.tsx';

export function CustomerCard({ chat }: { chat: InboxChat }) {
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
      </dl>
    </aside>
  );
}
