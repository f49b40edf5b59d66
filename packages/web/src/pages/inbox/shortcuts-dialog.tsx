// The list of the Inbox's keys (`?`): a modal dialog; Escape or `Close` closes it.
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../../i18n.ts';
import { SHORTCUTS } from './shortcuts.ts';

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} class="shortcuts" aria-label="Keyboard shortcuts" onClose={onClose}>
      <h2>{t('Keyboard shortcuts')}</h2>
      <dl>
        {SHORTCUTS.map((shortcut) => (
          <div key={shortcut.key}>
            <dt>
              <kbd>{shortcut.key}</kbd>
            </dt>
            <dd>{t(shortcut.description)}</dd>
          </div>
        ))}
      </dl>
      <p class="muted small">{t('Not while typing in a field.')}</p>
      <button type="button" aria-label="Close" onClick={onClose}>
        {t('Close')}
      </button>
    </dialog>
  );
}
