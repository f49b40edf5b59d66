// The reports' summary from its parts: the rollup's rows of the window (ended conversations, per day and channel, of
// every conversation or of the filtered member), its per-member rows, and the window's open conversations read live.
// Counts and averages are exact; percentiles come from the duration histograms (duration-histogram.ts).
import type { ReportSummary } from '@parley/contracts';
import {
  addHistogram,
  countBucket,
  emptyHistogram,
  histogramPercentile,
  type Histogram,
} from './duration-histogram.ts';
import type { OpenFigures, ReportScope, RollupRow } from './conversations-store.ts';

const DAY_MS = 24 * 60 * 60_000;

export interface SummaryParts {
  rollup: readonly RollupRow[];
  memberRollup: readonly RollupRow[];
  open: OpenFigures;
  channelNames: ReadonlyMap<string, string>;
  memberNames: ReadonlyMap<string, string>;
}

interface Breakdown {
  conversations: number;
  resolvedByAgent: number;
  handedOff: number;
  resolvedByTeam: number;
}

interface MemberTally {
  conversations: number;
  team: Histogram;
  csatCount: number;
  csatSum: number;
}

const rate = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const average = (sum: number, count: number): number | null => (count > 0 ? sum / count : null);
const percentiles = (histogram: Histogram) => ({ p50: histogramPercentile(histogram, 0.5), p90: histogramPercentile(histogram, 0.9) });

function breakdown(map: Map<string, Breakdown>, key: string): Breakdown {
  let entry = map.get(key);
  if (!entry) {
    entry = { conversations: 0, resolvedByAgent: 0, handedOff: 0, resolvedByTeam: 0 };
    map.set(key, entry);
  }
  return entry;
}

/** The ids of the channels and members the summary names (their names are read once for all). */
export function namedIds(parts: Pick<SummaryParts, 'rollup' | 'memberRollup' | 'open'>, memberFilter?: string): { channels: string[]; members: string[] } {
  const channels = new Set<string>();
  const members = new Set<string>();
  for (const row of parts.rollup) channels.add(row.channelId);
  for (const row of parts.memberRollup) members.add(row.memberId);
  for (const row of parts.open.days) channels.add(row.channelId);
  for (const row of parts.open.members) if (memberFilter === undefined || row.memberId === memberFilter) members.add(row.memberId);
  return { channels: [...channels], members: [...members] };
}

export function composeSummary(scope: ReportScope, parts: SummaryParts): ReportSummary {
  const agent = emptyHistogram();
  const team = emptyHistogram();
  const resolution = emptyHistogram();
  const days = new Map<string, Breakdown>();
  const channels = new Map<string, Breakdown>();
  const t = {
    ended: 0, resolvedByAgent: 0, resolvedByAgentConfirmed: 0, resolvedByAgentDurable: 0, resolvedByTeam: 0, handedOff: 0,
    unanswered: 0, endedHandedOff: 0, answeredAfterChoice: 0, resolvedWithAction: 0, reasonModel: 0, reasonCustomerRequest: 0, reasonFallbacks: 0,
    csatAgentCount: 0, csatAgentSum: 0, csatTeamCount: 0, csatTeamSum: 0,
  };
  const keys = Object.keys(t) as (keyof typeof t)[];
  for (const row of parts.rollup) {
    for (const key of keys) t[key] += row[key];
    addHistogram(agent, row.agentHist);
    addHistogram(team, row.teamHist);
    addHistogram(resolution, row.resolutionHist);
    for (const entry of [breakdown(days, row.day), breakdown(channels, row.channelId)]) {
      entry.conversations += row.ended;
      entry.resolvedByAgent += row.resolvedByAgent;
      entry.handedOff += row.handedOff;
      entry.resolvedByTeam += row.resolvedByTeam;
    }
  }
  let open = 0;
  for (const row of parts.open.days) {
    open += row.conversations;
    t.answeredAfterChoice += row.answeredAfterChoice;
    t.reasonModel += row.reasonModel;
    t.reasonCustomerRequest += row.reasonCustomerRequest;
    t.reasonFallbacks += row.reasonFallbacks;
    breakdown(days, row.day).conversations += row.conversations;
    breakdown(channels, row.channelId).conversations += row.conversations;
  }
  for (const { bucket, count } of parts.open.agentBuckets) countBucket(agent, bucket, count);
  for (const { bucket, count } of parts.open.teamBuckets) countBucket(team, bucket, count);
  return {
    conversations: t.ended + open,
    outcomes: {
      resolvedByAgent: t.resolvedByAgent,
      resolvedByAgentConfirmed: t.resolvedByAgentConfirmed,
      resolvedByAgentDurable: t.resolvedByAgentDurable,
      resolvedByTeam: t.resolvedByTeam,
      handedOff: t.handedOff,
      unanswered: t.unanswered,
      open,
    },
    answeredAfterChoice: t.answeredAfterChoice,
    resolvedWithAction: t.resolvedWithAction,
    agentResolutionRate: rate(t.resolvedByAgent, t.ended),
    handoffRate: rate(t.endedHandedOff, t.ended),
    handoffReasons: { model: t.reasonModel, customer_request: t.reasonCustomerRequest, fallbacks: t.reasonFallbacks },
    firstResponseSeconds: { agent: percentiles(agent), team: percentiles(team) },
    resolutionSeconds: percentiles(resolution),
    csat: {
      agent: { count: t.csatAgentCount, average: average(t.csatAgentSum, t.csatAgentCount) },
      team: { count: t.csatTeamCount, average: average(t.csatTeamSum, t.csatTeamCount) },
    },
    perDay: dailyRows(scope, days),
    perChannel: [...channels.entries()]
      .map(([channelId, entry]) => ({ channelId, name: parts.channelNames.get(channelId) ?? '', conversations: entry.conversations, resolvedByAgent: entry.resolvedByAgent }))
      .sort((a, b) => b.conversations - a.conversations || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0)),
    perMember: perMember(scope, parts),
  };
}

/** The members who replied in the window's conversations (only the filtered one with a member filter). */
function perMember(scope: ReportScope, parts: SummaryParts): ReportSummary['perMember'] {
  const members = new Map<string, MemberTally>();
  const tally = (id: string): MemberTally => {
    let entry = members.get(id);
    if (!entry) {
      entry = { conversations: 0, team: emptyHistogram(), csatCount: 0, csatSum: 0 };
      members.set(id, entry);
    }
    return entry;
  };
  for (const row of parts.memberRollup) {
    const entry = tally(row.memberId);
    entry.conversations += row.ended;
    addHistogram(entry.team, row.teamHist);
    entry.csatCount += row.csatCount;
    entry.csatSum += row.csatSum;
  }
  for (const row of parts.open.members) {
    if (scope.memberId !== undefined && row.memberId !== scope.memberId) continue;
    const entry = tally(row.memberId);
    entry.conversations += row.count;
    countBucket(entry.team, row.bucket, row.count);
  }
  return [...members.entries()]
    .map(([memberId, entry]) => ({
      memberId,
      name: parts.memberNames.get(memberId) ?? 'Removed member',
      conversations: entry.conversations,
      firstResponseP50: histogramPercentile(entry.team, 0.5),
      csatAverage: average(entry.csatSum, entry.csatCount),
    }))
    .sort((a, b) => b.conversations - a.conversations || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One row per UTC day of the window, oldest first (days without conversations included, with 0). */
function dailyRows(scope: ReportScope, days: ReadonlyMap<string, Breakdown>): ReportSummary['perDay'] {
  const out: ReportSummary['perDay'] = [];
  for (let at = scope.from.getTime(); at < scope.until.getTime(); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    const entry = days.get(date);
    out.push({
      date,
      conversations: entry?.conversations ?? 0,
      resolvedByAgent: entry?.resolvedByAgent ?? 0,
      handedOff: entry?.handedOff ?? 0,
      resolvedByTeam: entry?.resolvedByTeam ?? 0,
    });
  }
  return out;
}
