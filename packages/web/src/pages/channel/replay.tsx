// `Test on past conversations` on a channel's page (DESIGN, Replay and knowledge gaps; admins): replay the channel's
// history of the last days, or an uploaded CSV / JSON file, against the agent as configured now (nothing is sent),
// with live progress (polled each second), then the summary and the items side by side (replay-results.tsx).
import { useEffect, useState } from 'preact/hooks';
import type { Channel, Replay, StartedReplay } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { useAction } from '../../use-action.ts';
import { ErrorLine, Field } from '../../ui.tsx';
import { ReplayResults } from './replay-results.tsx';

const POLL_MS = 1_000;

function useReplay(id: string | null) {
  const [replay, setReplay] = useState<Replay | null>(null);
  useEffect(() => {
    if (!id) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const current = await api<Replay>('GET', `/replays/${id}`);
        if (stopped) return;
        setReplay(current);
        if (current.status === 'running') timer = setTimeout(() => void poll(), POLL_MS);
      } catch {
        if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);
  return { replay, setReplay };
}

function StartForm({ channel, onStarted }: { channel: Channel; onStarted: (id: string) => void }) {
  const [source, setSource] = useState<'history' | 'file'>('history');
  const [days, setDays] = useState('30');
  const [file, setFile] = useState<File | null>(null);
  const { busy, error, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      let started: StartedReplay;
      if (source === 'history') {
        started = await api<StartedReplay>('POST', '/replays/', { body: { channelId: channel.id, source: 'history', days: Number(days) } });
      } else {
        const form = new FormData();
        form.append('channelId', channel.id);
        if (file) form.append('file', file, file.name);
        started = await api<StartedReplay>('POST', '/replays/', { form });
      }
      onStarted(started.id);
    });
  };
  return (
    <form class="grid" aria-label="Replay settings" onSubmit={submit} aria-busy={busy}>
      <fieldset class="plain" disabled={busy}>
        <Field label={t('Questions from')}>
          <select aria-label="Source" value={source} onChange={(e) => setSource(e.currentTarget.value === 'file' ? 'file' : 'history')}>
            <option value="history">{t("This channel's conversations")}</option>
            <option value="file">{t('A file (CSV or JSON)')}</option>
          </select>
        </Field>
        {source === 'history' ? (
          <Field label={t('Days')}>
            <input aria-label="Days" type="number" min={1} max={365} required value={days} onInput={(e) => setDays(e.currentTarget.value)} />
          </Field>
        ) : (
          <Field label={t('File: CSV with question,answer or JSON [ { question, answer } ]')}>
            <input aria-label="File" type="file" required accept=".csv,.json,text/csv,application/json" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          </Field>
        )}
        <ErrorLine error={error} />
        <div class="row">
          <button type="submit" aria-label="Start replay">
            {t('Start replay')}
          </button>
        </div>
      </fieldset>
    </form>
  );
}

export function ReplayCard({ channel }: { channel: Channel }) {
  const [open, setOpen] = useState(false);
  const [replayId, setReplayId] = useState<string | null>(null);
  const { replay, setReplay } = useReplay(replayId);
  return (
    <section class="card grid" aria-label="Replay">
      <h2>{t('Test on past conversations')}</h2>
      <p class="note">{t('Past customer questions are answered again by the agent as it is set up now. Nothing is sent to anyone.')}</p>
      {!open && (
        <div class="row">
          <button type="button" aria-label="Test on past conversations" onClick={() => setOpen(true)}>
            {t('Test on past conversations')}
          </button>
        </div>
      )}
      {open && replayId === null && <StartForm channel={channel} onStarted={setReplayId} />}
      {replay && replay.status === 'running' && (
        <p role="status">
          <progress aria-label="Replay progress" value={replay.done} max={Math.max(replay.total, 1)} /> {replay.done} / {replay.total}
        </p>
      )}
      {replay && replay.status === 'failed' && <ErrorLine error={t('The replay failed: the agent could not answer.')} />}
      {replay && replay.status === 'done' && <ReplayResults replay={replay} onChanged={setReplay} />}
      {replay && replay.status !== 'running' && (
        <div class="row">
          <button
            type="button"
            aria-label="New replay"
            onClick={() => {
              setReplayId(null);
              setReplay(null);
            }}
          >
            {t('New replay')}
          </button>
        </div>
      )}
    </section>
  );
}
