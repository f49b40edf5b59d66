// The customer card's `Export data` and `Erase data` (issue #45, item 5), for admins: the customer is this chat and
// the account's chats with its e-mail. Erasing asks first; it cannot be undone.
import { useState } from 'preact/hooks';
import { api, apiFile } from '../api.ts';
import { t } from '../i18n.ts';
import { useCanManage } from '../role.tsx';
import { useAction } from '../use-action.ts';
import { ErrorLine, StatusLine } from '../ui.tsx';

/** Saves the zip (a fetch with the session, then a Blob the browser downloads). */
async function downloadZip(chatId: string): Promise<void> {
  const url = URL.createObjectURL(await apiFile('/customers/export', { chatId }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'customer-data.zip';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function CustomerData({ chatId, onErased }: { chatId: string; onErased: () => void }) {
  const canManage = useCanManage();
  const action = useAction();
  const [done, setDone] = useState<string | null>(null);
  if (!canManage) return null;

  const erase = () => {
    if (!confirm(t("Erase this customer's data? Every message of their chats (this one and those with its e-mail) loses its text and files, and the chats keep no name or e-mail. This cannot be undone."))) return;
    setDone(null);
    void action.run(async () => {
      const erased = await api<{ chats: number; messages: number; files: number }>('POST', '/customers/erase', { body: { chatId } });
      setDone(
        t('Erased: {chats} chats, {messages} messages, {files} files.')
          .replace('{chats}', String(erased.chats))
          .replace('{messages}', String(erased.messages))
          .replace('{files}', String(erased.files)),
      );
      onErased();
    });
  };

  return (
    <div class="row customer-data">
      <button type="button" class="small" aria-label="Export data" disabled={action.busy} onClick={() => void action.run(() => downloadZip(chatId))}>
        {t('Export data')}
      </button>
      <button type="button" class="small" aria-label="Erase data" disabled={action.busy} onClick={erase}>
        {t('Erase data')}
      </button>
      <ErrorLine error={action.error} />
      <StatusLine text={done} />
    </div>
  );
}
