// `Test`: the saved action called with values typed here, showing the request as it went (secrets masked), the
// shop's response, and the answer rendered from it or the error. A write is sent only with `Confirm the write`;
// without it the request is shown and nothing is sent.
import { useState } from 'preact/hooks';
import type { Action, ActionTestResult } from '@parley/contracts';
import { api } from '../../api.ts';
import { t } from '../../i18n.ts';
import { useAction } from '../../use-action.ts';
import { ErrorLine, Field } from '../../ui.tsx';

/** The values as the test call takes them: numbers as numbers, empty ones left out. */
function valuesOf(action: Action, typed: Record<string, string>): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const parameter of action.parameters) {
    const value = typed[parameter.name] ?? '';
    if (value === '') continue;
    values[parameter.name] = parameter.type === 'number' && value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
  }
  return values;
}

/** The shop's answer indented when it is whole JSON (it may be cut at 8 KB: then as it came). */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function RequestShown({ request }: { request: ActionTestResult['request'] }) {
  const lines = [`${request.method} ${request.url}`, ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`)];
  if (request.body !== null && request.body !== undefined) lines.push('', JSON.stringify(request.body, null, 2));
  return (
    <section aria-label="Test request">
      <h3>{t('Request')}</h3>
      <pre>{lines.join('\n')}</pre>
    </section>
  );
}

function ResultShown({ result }: { result: ActionTestResult }) {
  return (
    <div class="grid test-result">
      <RequestShown request={result.request} />
      {result.response && (
        <section aria-label="Test response">
          <h3>
            {t('Response')}: HTTP {result.response.status}
          </h3>
          <pre>{pretty(result.response.body)}</pre>
        </section>
      )}
      {result.answer !== null && (
        <section aria-label="Test answer">
          <h3>{t('Answer')}</h3>
          <p class="bubble assistant">{result.answer}</p>
        </section>
      )}
      {result.error !== null && (
        <section aria-label="Test error">
          <h3>{t('Error')}</h3>
          <p class="error">{result.error}</p>
        </section>
      )}
    </div>
  );
}

export function TestPanel({ action, onRan }: { action: Action; onRan: () => void }) {
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [confirm, setConfirm] = useState(false);
  const [result, setResult] = useState<ActionTestResult | null>(null);
  const { busy, error, run } = useAction();
  const test = async (event: Event) => {
    event.preventDefault();
    setResult(null);
    await run(async () => {
      const body = { parameters: valuesOf(action, typed), ...(action.kind === 'write' && confirm ? { confirm: true } : {}) };
      setResult(await api<ActionTestResult>('POST', `/actions/${action.id}/test`, { body }));
      onRan();
    });
  };
  return (
    <form class="card grid" aria-label="Test" onSubmit={test}>
      <h2>{t('Test')}</h2>
      <p class="muted small">{t('Calls the saved action with these values (a verified parameter too): save your changes first.')}</p>
      {action.parameters.map((parameter) => (
        <Field key={parameter.name} label={`${parameter.name}${parameter.required ? ' *' : ''}`}>
          {parameter.type === 'enum' ? (
            <select aria-label={parameter.name} value={typed[parameter.name] ?? ''} onChange={(e) => setTyped({ ...typed, [parameter.name]: e.currentTarget.value })}>
              <option value="">—</option>
              {(parameter.values ?? []).map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          ) : (
            <input aria-label={parameter.name} value={typed[parameter.name] ?? ''} onInput={(e) => setTyped({ ...typed, [parameter.name]: e.currentTarget.value })} />
          )}
        </Field>
      ))}
      {action.kind === 'write' && (
        <label class="check">
          <input type="checkbox" aria-label="Confirm the write" checked={confirm} onChange={(e) => setConfirm(e.currentTarget.checked)} />
          <span>{t('This is a write: really send it (unchecked, the request is only shown)')}</span>
        </label>
      )}
      <div class="row">
        <button type="submit" aria-label="Run test" disabled={busy}>
          {t('Run test')}
        </button>
      </div>
      <ErrorLine error={error} />
      {result && <ResultShown result={result} />}
    </form>
  );
}
