// A finished replay: its summary, and its items side by side — the question, the team's answer, the agent's reply,
// the verdict — with `Right` / `Wrong` to mark each reply, filtered by verdict, 50 at a time.
import { useEffect, useState } from 'preact/hooks';
import type { Replay, ReplayItem, ReplayMark, ReplayVerdict } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { ErrorLine, Field } from '../../ui.tsx';
import { Group } from '../reports/figures.tsx';
import { percent } from '../reports/format.ts';

const VERDICTS: Record<ReplayVerdict, string> = {
  agrees: 'Agrees with the team',
  differs: 'Differs',
  clarified: 'Asked to choose',
  handed_off: 'Handed off',
  fell_back: 'Fell back',
};

/** One figure of the summary: its value and label, as the Reports page shows one (no link: the items are below). */
function Figure({ name, value, small }: { name: string; value: string | number; small?: boolean }) {
  return (
    <span class={small ? 'figure small' : 'figure'} aria-label={`${name}: ${value}`} role="group">
      <strong>{value}</strong> <span>{t(name)}</span>
    </span>
  );
}

/** The summary laid out as the Reports page's cards: what the agent did, how its answers were judged, the other marks. */
function Summary({ replay }: { replay: Replay }) {
  const s = replay.summary;
  return (
    <div class="stats replay-stats" aria-label="Replay summary" role="group">
      <Group name="Replies">
        <p class="big">
          <Figure name="Questions" value={replay.total} />
        </p>
        <ul class="figure-list">
          <li>
            <Figure name="Answered" value={s.answered} />
            <ul>
              <li>
                <Figure name="Agrees with the team" value={s.agreesWithTeam} small />
              </li>
              <li>
                <Figure name="Differs" value={s.differs} small />
              </li>
            </ul>
          </li>
          <li>
            <Figure name="Asked to choose" value={s.clarified} />
          </li>
          <li>
            <Figure name="Handed off" value={s.handedOff} />
          </li>
          <li>
            <Figure name="Fell back" value={s.fellBack} />
          </li>
        </ul>
      </Group>
      <Group name="Estimated precision">
        <p class="rate">
          <Figure name="Estimated precision" value={percent(s.estimatedPrecision)} />
        </p>
        <ul class="figure-list">
          <li>
            <Figure name="Marked right" value={s.markedRight} small />
          </li>
          <li>
            <Figure name="Marked wrong" value={s.markedWrong} small />
          </li>
        </ul>
        <p class="muted small">{t('Of the answers you marked Right or Wrong.')}</p>
      </Group>
      <Group name="Other marks">
        <ul class="figure-list">
          <li>
            <Figure name="Other replies marked right" value={s.unansweredMarks.markedRight} />
          </li>
          <li>
            <Figure name="Other replies marked wrong" value={s.unansweredMarks.markedWrong} />
          </li>
        </ul>
        <p class="muted small">{t('Clarifications, handoffs and fallbacks: not in the precision.')}</p>
      </Group>
    </div>
  );
}

function MarkButtons({ item, onMark }: { item: ReplayItem; onMark: (mark: ReplayMark | null) => void }) {
  return (
    <div class="row">
      {(['right', 'wrong'] as const).map((mark) => (
        <button key={mark} type="button" aria-label={mark === 'right' ? 'Right' : 'Wrong'} aria-pressed={item.mark === mark} onClick={() => onMark(item.mark === mark ? null : mark)}>
          {t(mark === 'right' ? 'Right' : 'Wrong')}
        </button>
      ))}
    </div>
  );
}

export function ReplayResults({ replay, onChanged }: { replay: Replay; onChanged: (replay: Replay) => void }) {
  const [verdict, setVerdict] = useState<ReplayVerdict | ''>('');
  const [items, setItems] = useState<ReplayItem[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async (cursor?: string) => {
    try {
      const page = await api<{ items: ReplayItem[]; nextCursor: string | null }>('GET', `/replays/${replay.id}/items`, { query: { verdict: verdict || undefined, limit: 50, cursor } });
      setItems((shown) => (cursor ? [...shown, ...page.items] : page.items));
      setNext(page.nextCursor);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void load(), [replay.id, verdict]);
  const mark = async (item: ReplayItem, value: ReplayMark | null) => {
    try {
      const saved = await api<ReplayItem>('PUT', `/replays/${replay.id}/items/${item.id}`, { body: { mark: value } });
      setItems((shown) => shown.map((i) => (i.id === saved.id ? saved : i)));
      onChanged(await api<Replay>('GET', `/replays/${replay.id}`));
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <div class="grid">
      <Summary replay={replay} />
      <Field label={t('Verdict')}>
        <select aria-label="Verdict" value={verdict} onChange={(e) => setVerdict(e.currentTarget.value as ReplayVerdict | '')}>
          <option value="">{t('All')}</option>
          {Object.entries(VERDICTS).map(([value, label]) => (
            <option key={value} value={value}>
              {t(label)}
            </option>
          ))}
        </select>
      </Field>
      <ErrorLine error={error} />
      <table class="list" aria-label="Replayed questions">
        <thead>
          <tr>
            <th>{t('Question')}</th>
            <th>{t("Team's answer")}</th>
            <th>{t("Agent's reply")}</th>
            <th>{t('Verdict')}</th>
            <th>{t('Mark')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} aria-label={item.question}>
              <td>{item.question}</td>
              <td>
                {item.teamAnswer ?? '—'}
                {item.answeredBy === 'agent' && <span class="muted small"> ({t("the agent's past reply: no member replied")})</span>}
              </td>
              <td class="pre">{item.agentReply ?? '—'}</td>
              <td aria-label="Verdict">{item.verdict ? t(VERDICTS[item.verdict]) : '…'}</td>
              <td>
                <MarkButtons item={item} onMark={(value) => void mark(item, value)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <button type="button" aria-label="More" onClick={() => void load(next)}>
          {t('More')}
        </button>
      )}
    </div>
  );
}
