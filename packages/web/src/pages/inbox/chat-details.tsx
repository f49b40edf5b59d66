// The open chat's details — the customer card, the assignment and the tags — folded away under the chat's head, so
// that the history keeps most of the height (issue #42). The head's line says the essentials (assignee, tags) and
// its `Details` button unfolds the rest. Whether they are unfolded is the member's choice, kept in this browser.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../../i18n.ts';

const STORAGE_KEY = 'parley.inbox.details';
const PANEL_ID = 'chat-details-panel';

function storedOpen(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'open';
  } catch {
    return false;
  }
}

export interface DetailsFold {
  open: boolean;
  toggle: () => void;
}

/** Whether the details are unfolded, and the switch; folded unless the member left them unfolded. */
export function useDetailsFold(): DetailsFold {
  const [open, setOpen] = useState(storedOpen);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    try {
      localStorage.setItem(STORAGE_KEY, next ? 'open' : 'folded');
    } catch {
      // Storage refused (a private mode): the choice lasts for this page.
    }
  };
  return { open, toggle };
}

/** The head's button that unfolds the details. */
export function DetailsToggle({ fold }: { fold: DetailsFold }) {
  return (
    <button type="button" aria-label="Details" aria-expanded={fold.open} aria-controls={PANEL_ID} onClick={fold.toggle}>
      {fold.open ? '▾' : '▸'} {t('Details')}
    </button>
  );
}

/** The details themselves, shown while unfolded (they scroll within at most half the chat). */
export function DetailsPanel({ fold, children }: { fold: DetailsFold; children: ComponentChildren }) {
  return (
    <div id={PANEL_ID} class="details-panel" hidden={!fold.open}>
      {children}
    </div>
  );
}
