// What a report shows (date range, channel, member) and what a figure's conversations are, kept in the page's URL so
// that a figure's link, the Back button and a shared address all show the same thing.
import type { LedgerFigure } from '@parley/contracts';
import type { Outcome } from './types.ts';

export interface ReportQuery {
  /** YYYY-MM-DD, UTC days, both included. */
  from: string;
  to: string;
  /** '' for every channel / member. */
  channelId: string;
  memberId: string;
}

/** A figure that the ledger's `outcome` filter cannot name (confirmed, durable, a handoff reason, rated, …). */
export type Only = LedgerFigure;
/** Every figure the ledger's `only` names (a Record, so that the type checker sees each one listed). */
const FIGURES: Record<Only, true> = {
  confirmed: true,
  durable: true,
  handed_off: true,
  model: true,
  customer_request: true,
  fallbacks: true,
  rated: true,
  agent_response: true,
  team_response: true,
  ended: true,
  after_choice: true,
  with_action: true,
};
const ONLY = Object.keys(FIGURES) as Only[];

export interface LedgerQuery extends ReportQuery {
  outcome: Outcome | '';
  only: Only | '';
}

const OUTCOMES: readonly Outcome[] = ['resolved_by_agent', 'resolved_by_team', 'handed_off', 'unanswered', 'open'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day `daysAgo` days before today. */
export function utcDay(daysAgo = 0): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

export function reportQueryOf(search: string): ReportQuery {
  const params = new URLSearchParams(search);
  const day = (name: string, fallback: string) => {
    const value = params.get(name) ?? '';
    return DAY.test(value) ? value : fallback;
  };
  return { from: day('from', utcDay(29)), to: day('to', utcDay()), channelId: params.get('channelId') ?? '', memberId: params.get('memberId') ?? '' };
}

export function ledgerQueryOf(search: string): LedgerQuery {
  const params = new URLSearchParams(search);
  const outcome = params.get('outcome') ?? '';
  const only = params.get('only') ?? '';
  return {
    ...reportQueryOf(search),
    outcome: OUTCOMES.find((known) => known === outcome) ?? '',
    only: ONLY.find((known) => known === only) ?? '',
  };
}

/** `?from=…&to=…` with the filters that are set. */
export function searchOf(query: Partial<LedgerQuery>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The query of the server's calls: the filters that are set, nothing else (unknown parameters are a 400). */
export function apiQuery(query: ReportQuery & { outcome?: Outcome | ''; only?: Only | '' }): Record<string, string> {
  const result: Record<string, string> = { from: query.from, to: query.to };
  if (query.channelId) result.channelId = query.channelId;
  if (query.memberId) result.memberId = query.memberId;
  if (query.outcome) result.outcome = query.outcome;
  if (query.only) result.only = query.only;
  return result;
}

/** Where a figure's link goes: its conversations, under the report's filters. */
export function ledgerHref(query: ReportQuery, figure: Partial<Pick<LedgerQuery, 'outcome' | 'only' | 'channelId' | 'memberId' | 'from' | 'to'>> = {}): string {
  return `/reports/conversations${searchOf({ ...query, ...figure })}`;
}
