// The channel form's Agent section: who the agent is and which engine answers.
import { t } from '../../i18n.ts';
import { Field } from '../../ui.tsx';
import type { Channel } from '@parley/contracts';
import type { Draft, DraftFieldsProps } from './draft.ts';

export /** Who the agent is: the channel's name, whether the agent answers, and what it is told about its role. */
function AgentFields({ draft, set }: DraftFieldsProps) {
  return (
    <>
      <Field label={t('Name')}>
        <input aria-label="Name" required maxLength={100} value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
      </Field>
      <label class="check">
        <input type="checkbox" aria-label="Agent on" checked={draft.isActive} onChange={(e) => set({ isActive: e.currentTarget.checked })} />
        <span>{t('Agent on')}</span>
      </label>
      <Field label={t('Role')}>
        <input aria-label="Role" maxLength={1000} value={draft.role} onInput={(e) => set({ role: e.currentTarget.value })} />
      </Field>
      <Field label={t('Behavior')}>
        <textarea aria-label="Behavior" rows={3} maxLength={4000} value={draft.behavior} onInput={(e) => set({ behavior: e.currentTarget.value })} />
      </Field>
      <Field label={t('Task')}>
        <textarea aria-label="Task" rows={2} maxLength={2000} value={draft.task} onInput={(e) => set({ task: e.currentTarget.value })} />
      </Field>
      <Field label={t('Greeting')}>
        <input aria-label="Greeting" maxLength={1000} value={draft.greeting} onInput={(e) => set({ greeting: e.currentTarget.value })} />
      </Field>
      <Field label={t('Agent language')}>
        <input aria-label="Agent language" maxLength={16} value={draft.aiLang} onInput={(e) => set({ aiLang: e.currentTarget.value })} />
      </Field>
    </>
  );
}

/** Which engine answers, and its own settings: the knowledge base's threshold or the model's address and key. */
export function EngineFields({ channel, draft, set }: DraftFieldsProps & { channel: Channel }) {
  return (
    <>
      <Field label={t('Engine')}>
        <select aria-label="Engine" value={draft.engine} onChange={(e) => set({ engine: e.currentTarget.value as Draft['engine'] })}>
          <option value="knowledge-base">Knowledge base</option>
          <option value="openai-compatible">OpenAI-compatible</option>
        </select>
      </Field>
      {draft.engine === 'knowledge-base' && (
        <Field label={t('Answer threshold')}>
          <input
            aria-label="Answer threshold"
            type="number"
            min="0"
            max="1"
            step="0.01"
            placeholder={t('default')}
            value={draft.answerThreshold}
            onInput={(e) => set({ answerThreshold: e.currentTarget.value })}
          />
        </Field>
      )}
      {draft.engine === 'openai-compatible' && (
        <>
          <Field label={t('Base URL')}>
            <input aria-label="Base URL" type="url" required placeholder="https://api.openai.com/v1" value={draft.baseUrl} onInput={(e) => set({ baseUrl: e.currentTarget.value })} />
          </Field>
          <Field label={t('Model')}>
            <input aria-label="Model" required value={draft.model} onInput={(e) => set({ model: e.currentTarget.value })} />
          </Field>
          <Field label={t('API key')}>
            <input
              aria-label="API key"
              type="password"
              autocomplete="off"
              placeholder={channel.agentEngine.kind === 'openai-compatible' && channel.agentEngine.apiKeySet ? t('a key is stored') : t('written, never shown')}
              value={draft.apiKey}
              onInput={(e) => set({ apiKey: e.currentTarget.value })}
            />
          </Field>
        </>
      )}
    </>
  );
}
