// What the signed-in member's role may do (DESIGN, Team workspace → Roles). The server enforces every rule; the
// web account only stops offering what the role cannot use, and says so once on the page.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from '@parley/contracts';
import { t } from './i18n.ts';

export const SessionContext = createContext<Session | null>(null);

/** Whether the member may change channels, webhooks, engines, knowledge bases, CRM connections and members. */
export function useCanManage(): boolean {
  const session = useContext(SessionContext);
  return session !== null && session.role !== 'agent';
}

/** The line an agent reads where the page's changes are an admin's. */
export function AdminOnlyNote({ text }: { text: string }) {
  return (
    <p class="note" role="note" aria-label="Admin only">
      {t(text)}
    </p>
  );
}
