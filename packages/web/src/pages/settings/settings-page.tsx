// The account's settings (DESIGN, Security and privacy → Web account: page `Settings`, admin): one section per area,
// each a component of this folder with its own form and `Save`. Later areas (assignment, security, the audit log)
// are new files listed in SECTIONS.
import type { FunctionComponent } from 'preact';
import { t } from '../../i18n.ts';
import { AlertsSection } from './alerts-section.tsx';
import { AssignmentSection } from './assignment-section.tsx';
import { AuditSection } from './audit-section.tsx';
import { ConversationsSection } from './conversations-section.tsx';
import { SecuritySection } from './security-section.tsx';

/** The sections, in the page's order. */
const SECTIONS: FunctionComponent[] = [ConversationsSection, AlertsSection, AssignmentSection, SecuritySection, AuditSection];

export function SettingsPage() {
  return (
    <section class="page settings">
      <h1>{t('Settings')}</h1>
      <p class="muted">{t('Settings of the whole account. Each member’s own name, language and alerts are on their Profile.')}</p>
      {SECTIONS.map((Section, index) => (
        <Section key={index} />
      ))}
    </section>
  );
}
