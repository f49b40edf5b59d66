// The web account in Russian, one file per area (English is the key; ../i18n.ts looks texts up here).
import { account } from './account.ts';
import { actions } from './actions.ts';
import { channels } from './channels.ts';
import { common } from './common.ts';
import { crm } from './crm.ts';
import { inbox } from './inbox.ts';
import { knowledge } from './knowledge.ts';
import { overview } from './overview.ts';
import { reports } from './reports.ts';
import { settings } from './settings.ts';

export const ru: Record<string, string> = { ...common, ...account, ...overview, ...inbox, ...channels, ...knowledge, ...reports, ...crm, ...actions, ...settings };
