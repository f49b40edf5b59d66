// The shapes of the reports API (DESIGN, Outcomes and reports), from the contracts; types only (no schema code in
// the bundle).
import type { LedgerConversation } from '@parley/contracts';

export type { LedgerConversation, ReportSummary } from '@parley/contracts';
export type Outcome = LedgerConversation['outcome'];
export type OpenState = NonNullable<LedgerConversation['state']>;

/** A page of `GET /reports/conversations`. */
export interface Ledger {
  conversations: LedgerConversation[];
  nextCursor: string | null;
}
