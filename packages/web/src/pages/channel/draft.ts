// The channel page's one form: what it edits (a Draft made from the Channel) and the PUT body it saves.
import type { AgentEngineInput, Channel, PreChatForm, UpdateChannelBody, WidgetSettingsInput, WorkingHours } from '@parley/contracts';
import { CREDENTIAL_FIELDS } from '../channels.tsx';

/** A widget channel's settings as the form holds them (origins as typed, one per line). */
export interface WidgetDraft {
  origins: string;
  title: string;
  color: string;
  position: 'right' | 'left';
  launcherText: string;
  greeting: string;
  requireVerifiedIdentity: boolean;
  /** Empty: keep the stored one. */
  identitySecret: string;
  messagesPerMinute: number;
  newVisitorsPerIpPerMinute: number;
  maxMessageLength: number;
  preChatForm: PreChatForm;
}

export interface Draft {
  name: string;
  isActive: boolean;
  role: string;
  behavior: string;
  task: string;
  greeting: string;
  aiLang: string;
  engine: 'knowledge-base' | 'openai-compatible';
  baseUrl: string;
  /** The knowledge-base engine's answerThreshold as typed; empty = the calibrated default. */
  answerThreshold: string;
  model: string;
  apiKey: string;
  knowledgeBaseId: string;
  /** The account's actions the channel's agent may use. */
  actionIds: string[];
  hoursOn: boolean;
  timeZone: string;
  intervals: WorkingHours['intervals'];
  autoReply: string;
  /** Empty: the default sentence in the channel's language. */
  handoffMessage: string;
  handoffAfterFallbacks: number;
  webhookUrl: string;
  webhookSecret: string;
  credentials: Record<string, string>;
  widget: WidgetDraft | null;
}

/** What a part of the settings form needs: the draft it edits and how to change it. */
export interface DraftFieldsProps {
  draft: Draft;
  set: (changes: Partial<Draft>) => void;
}

function widgetDraftOf(channel: Channel): WidgetDraft | null {
  const view = channel.widget;
  if (!view) return null;
  return {
    origins: view.allowedOrigins.join('\n'),
    title: view.title,
    color: view.color,
    position: view.position,
    launcherText: view.launcherText,
    greeting: view.greeting,
    requireVerifiedIdentity: view.requireVerifiedIdentity,
    identitySecret: '',
    messagesPerMinute: view.messagesPerMinute,
    newVisitorsPerIpPerMinute: view.newVisitorsPerIpPerMinute,
    maxMessageLength: view.maxMessageLength,
    preChatForm: view.preChatForm,
  };
}

export function draftOf(channel: Channel): Draft {
  const engine = channel.agentEngine;
  return {
    name: channel.name,
    isActive: channel.settings.isActive,
    role: channel.settings.role,
    behavior: channel.settings.behavior,
    task: channel.settings.task,
    greeting: channel.settings.greeting,
    aiLang: channel.settings.aiLang,
    engine: engine.kind,
    baseUrl: engine.kind === 'openai-compatible' ? engine.baseUrl : '',
    answerThreshold: engine.kind === 'knowledge-base' && engine.answerThreshold !== undefined ? String(engine.answerThreshold) : '',
    model: engine.kind === 'openai-compatible' ? engine.model : '',
    apiKey: '',
    knowledgeBaseId: channel.knowledgeBaseId ?? '',
    actionIds: channel.actionIds,
    hoursOn: channel.workingHours !== null,
    timeZone: channel.workingHours?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    intervals: channel.workingHours?.intervals ?? [],
    autoReply: channel.autoReply ?? '',
    handoffMessage: channel.handoffMessage ?? '',
    handoffAfterFallbacks: channel.handoffAfterFallbacks,
    webhookUrl: channel.webhookUrl ?? '',
    webhookSecret: '',
    credentials: {},
    widget: widgetDraftOf(channel),
  };
}

/** The origins as typed: one per whitespace-separated word, without a trailing slash. */
export function originsOf(typed: string): string[] {
  return typed
    .split(/\s+/)
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

function widgetBodyOf(widget: WidgetDraft): WidgetSettingsInput {
  const body: WidgetSettingsInput = {
    allowedOrigins: originsOf(widget.origins),
    title: widget.title,
    color: widget.color,
    position: widget.position,
    launcherText: widget.launcherText,
    greeting: widget.greeting,
    requireVerifiedIdentity: widget.requireVerifiedIdentity,
    messagesPerMinute: widget.messagesPerMinute,
    newVisitorsPerIpPerMinute: widget.newVisitorsPerIpPerMinute,
    maxMessageLength: widget.maxMessageLength,
    preChatForm: widget.preChatForm,
  };
  if (widget.identitySecret) body.identitySecret = widget.identitySecret;
  return body;
}

export function bodyOf(draft: Draft, channel: Channel): UpdateChannelBody {
  let agentEngine: AgentEngineInput = { kind: 'knowledge-base' };
  if (draft.answerThreshold.trim() !== '') agentEngine.answerThreshold = Number(draft.answerThreshold);
  if (draft.engine === 'openai-compatible') {
    agentEngine = { kind: 'openai-compatible', baseUrl: draft.baseUrl.trim(), model: draft.model.trim() };
    if (draft.apiKey) agentEngine.apiKey = draft.apiKey;
  }
  const body: UpdateChannelBody = {
    name: draft.name,
    settings: {
      isActive: draft.isActive,
      role: draft.role,
      behavior: draft.behavior,
      task: draft.task,
      greeting: draft.greeting,
      aiLang: draft.aiLang,
    },
    agentEngine,
    knowledgeBaseId: draft.knowledgeBaseId || null,
    actionIds: draft.actionIds,
    workingHours: draft.hoursOn ? { timeZone: draft.timeZone, intervals: draft.intervals } : null,
    autoReply: draft.autoReply.trim() ? draft.autoReply : null,
    handoffMessage: draft.handoffMessage.trim() ? draft.handoffMessage : null,
    handoffAfterFallbacks: draft.handoffAfterFallbacks,
    webhookUrl: draft.webhookUrl.trim() ? draft.webhookUrl.trim() : null,
  };
  if (draft.webhookSecret) body.webhookSecret = draft.webhookSecret;
  if (draft.widget) body.widget = widgetBodyOf(draft.widget);
  const fields = CREDENTIAL_FIELDS[channel.type] ?? [];
  if (fields.some((f) => draft.credentials[f.key])) {
    body.credentials = Object.fromEntries(fields.map((f) => [f.key, draft.credentials[f.key] ?? '']));
  }
  return body;
}
