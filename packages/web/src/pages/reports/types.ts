// The shapes of the reports API (DESIGN, Outcomes and reports), as the page reads them.
export type Outcome = 'resolved_by_agent' | 'resolved_by_team' | 'handed_off' | 'unanswered' | 'open';
export type HandoffReason = 'model' | 'customer_request' | 'fallbacks';

interface Percentiles {
  p50: number | null;
  p90: number | null;
}

export interface ReportSummary {
  conversations: number;
  outcomes: {
    resolvedByAgent: number;
    resolvedByAgentConfirmed: number;
    resolvedByAgentDurable: number;
    resolvedByTeam: number;
    handedOff: number;
    unanswered: number;
    open: number;
  };
  answeredAfterChoice: number;
  agentResolutionRate: number | null;
  handoffRate: number | null;
  handoffReasons: Record<HandoffReason, number>;
  firstResponseSeconds: { agent: Percentiles; team: Percentiles };
  resolutionSeconds: Percentiles;
  csat: { agent: { count: number; average: number | null }; team: { count: number; average: number | null } };
  perDay: { date: string; conversations: number; resolvedByAgent: number; handedOff: number; resolvedByTeam: number }[];
  perChannel: { channelId: string; name: string; conversations: number; resolvedByAgent: number }[];
  perMember: { memberId: string; name: string; conversations: number; firstResponseP50: number | null; csatAverage: number | null }[];
}

export interface LedgerConversation {
  id: string;
  chatId: string;
  channelId: string;
  customerName: string | null;
  startedAt: string;
  endedAt: string | null;
  outcome: Outcome;
  confirmed: boolean | null;
  durable: boolean | null;
  handoffReason: HandoffReason | null;
  firstAgentResponseSeconds: number | null;
  firstTeamResponseSeconds: number | null;
  assignee: { id: string; name: string } | null;
  csat: number | null;
  messages: number;
}

export interface Ledger {
  conversations: LedgerConversation[];
  nextCursor: string | null;
}
