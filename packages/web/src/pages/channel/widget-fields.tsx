// The channel form's Widget section: the snippet to paste (with Copy), where the widget may show (and a warning while
// it may show nowhere), its look, identity rule and abuse limits.
import type { Channel, PreChatForm } from '@parley/contracts';
import { t } from '../../i18n.ts';
import { CopyButton, Field } from '../../ui.tsx';
import { originsOf, type DraftFieldsProps, type WidgetDraft } from './draft.ts';
import { EmbedAttempts } from './embed-attempts.tsx';

function PreChatFields({ form, onChange }: { form: PreChatForm; onChange: (form: PreChatForm) => void }) {
  return (
    <>
      <label class="check">
        <input type="checkbox" aria-label="Pre-chat form" checked={form.enabled} onChange={(e) => onChange({ ...form, enabled: e.currentTarget.checked })} />
        {t('Pre-chat form: ask for name and e-mail before the first message')}
      </label>
      {form.enabled && (
        <div class="row wrap">
          {(['name', 'email'] as const).map((field) => (
            <Field key={field} label={field === 'name' ? t('Name field') : t('Email field')}>
              <select
                aria-label={field === 'name' ? 'Name field' : 'Email field'}
                value={form[field]}
                onChange={(e) => onChange({ ...form, [field]: e.currentTarget.value === 'required' ? 'required' : 'optional' })}
              >
                <option value="required">{t('Required')}</option>
                <option value="optional">{t('Optional')}</option>
              </select>
            </Field>
          ))}
        </div>
      )}
    </>
  );
}

function LimitFields({ widget, change }: { widget: WidgetDraft; change: (changes: Partial<WidgetDraft>) => void }) {
  return (
    <div class="row wrap">
      <Field label={t('Messages per visitor per minute')}>
        <input aria-label="Messages per minute" type="number" min={1} value={widget.messagesPerMinute} onInput={(e) => change({ messagesPerMinute: Number(e.currentTarget.value) })} />
      </Field>
      <Field label={t('New visitors per address per minute')}>
        <input
          aria-label="New visitors per minute"
          type="number"
          min={1}
          value={widget.newVisitorsPerIpPerMinute}
          onInput={(e) => change({ newVisitorsPerIpPerMinute: Number(e.currentTarget.value) })}
        />
      </Field>
      <Field label={t('Longest message')}>
        <input aria-label="Longest message" type="number" min={1} value={widget.maxMessageLength} onInput={(e) => change({ maxMessageLength: Number(e.currentTarget.value) })} />
      </Field>
    </div>
  );
}

/** The snippet and the origins; the warning stays until a saved channel allows an origin. */
interface PlacementProps {
  channel: Channel;
  widget: WidgetDraft;
  change: (changes: Partial<WidgetDraft>) => void;
  onSaved: (channel: Channel) => void;
}

function Placement({ channel, widget, change, onSaved }: PlacementProps) {
  const view = channel.widget;
  if (!view) return null;
  return (
    <>
      <p class="muted small">{t('Paste this tag into the pages of your site:')}</p>
      <pre aria-label="Widget snippet">{view.snippet}</pre>
      <CopyButton text={view.snippet} label="Copy snippet" />
      {view.allowedOrigins.length === 0 && (
        <p class="error" role="alert" aria-label="Widget not shown">
          {t('The widget will not show on any site until you allow its origin below (e.g. https://shop.example) and save.')}
        </p>
      )}
      <Field label={t('Allowed origins (one per line)')}>
        <textarea aria-label="Allowed origins" rows={3} value={widget.origins} placeholder="https://shop.example" onInput={(e) => change({ origins: e.currentTarget.value })} />
      </Field>
      {originsOf(widget.origins).length === 0 && view.allowedOrigins.length > 0 && (
        <p class="muted small">{t('With no origin the widget shows nowhere.')}</p>
      )}
      <EmbedAttempts
        channel={channel}
        onAllowed={(saved) => {
          change({ origins: [...originsOf(widget.origins), ...(saved.widget?.allowedOrigins ?? [])].filter((o, i, all) => all.indexOf(o) === i).join('\n') });
          onSaved(saved);
        }}
      />
    </>
  );
}

export function WidgetFields({ channel, draft, set, onSaved }: DraftFieldsProps & { channel: Channel; onSaved: (channel: Channel) => void }) {
  const widget = draft.widget;
  const view = channel.widget;
  if (!widget || !view) return null;
  const change = (changes: Partial<WidgetDraft>) => set({ widget: { ...widget, ...changes } });
  return (
    <>
      <Placement channel={channel} widget={widget} change={change} onSaved={onSaved} />
      <div class="row wrap">
        <Field label={t('Title')}>
          <input aria-label="Widget title" required maxLength={60} value={widget.title} onInput={(e) => change({ title: e.currentTarget.value })} />
        </Field>
        <Field label={t('Colour')}>
          <input aria-label="Widget colour" type="color" value={widget.color} onInput={(e) => change({ color: e.currentTarget.value })} />
        </Field>
        <Field label={t('Position')}>
          <select aria-label="Widget position" value={widget.position} onChange={(e) => change({ position: e.currentTarget.value === 'left' ? 'left' : 'right' })}>
            <option value="right">{t('Bottom right')}</option>
            <option value="left">{t('Bottom left')}</option>
          </select>
        </Field>
        <Field label={t('Launcher text')}>
          <input aria-label="Launcher text" required maxLength={40} value={widget.launcherText} onInput={(e) => change({ launcherText: e.currentTarget.value })} />
        </Field>
      </div>
      <Field label={t('Widget greeting')}>
        <textarea aria-label="Widget greeting" rows={2} maxLength={1000} value={widget.greeting} onInput={(e) => change({ greeting: e.currentTarget.value })} />
      </Field>
      <label class="check">
        <input type="checkbox" aria-label="Require verified identity" checked={widget.requireVerifiedIdentity} onChange={(e) => change({ requireVerifiedIdentity: e.currentTarget.checked })} />
        {t('Require verified identity')}
      </label>
      <Field label={`${t('Identity secret')} (${view.identitySecretSet ? t('set; type to replace') : t('not set')})`}>
        <input aria-label="Identity secret" type="password" autocomplete="off" minLength={16} value={widget.identitySecret} onInput={(e) => change({ identitySecret: e.currentTarget.value })} />
      </Field>
      <PreChatFields form={widget.preChatForm} onChange={(preChatForm) => change({ preChatForm })} />
      <LimitFields widget={widget} change={change} />
    </>
  );
}
