// The summary of a handoff (issue #44, item 4; docs/decisions.md, "Handoff summaries"): a note of `kind: "summary"`
// the team reads at the top of the chat, written in the handoff's transaction from what the database already holds.
// Four lines:
//   Request:  the customer's messages since the team last replied (or the agent last handed over), greetings and
//             thanks alone, picks of a clarification (digits only) and exact repeats left out, joined with ` / `;
//   Agent:    what the agent answered last in that stretch, or the options it offered, or that it could not answer;
//   Reason:   the handoff's reason (the model's own words when it gave them);
//   Customer: the card's facts — name, e-mail, identifier, channel.
import { questionKey } from '../../knowledge/normalize.ts';
import type { HandoffReason } from '@parley/contracts';

/** Each quoted message is cut here, and the request line at REQUEST_MAX characters. */
const QUOTE_MAX = 300;
const REQUEST_MAX = 1_000;

/**
 * Messages that are only a greeting, a thanks or a politeness (after questionKey: lower case, no punctuation),
 * in the languages of the person-request phrases. A message with anything more is part of the request.
 */
const GREETINGS = new Set(
  [
    'hi', 'hello', 'hey', 'hi there', 'hello there', 'hey there', 'good morning', 'good afternoon', 'good evening', 'morning',
    'thanks', 'thank you', 'thanks a lot', 'thank you very much', 'many thanks', 'thx', 'ty', 'ok', 'okay', 'ok thanks',
    'ok thank you', 'bye', 'goodbye', 'yo', 'hiya', 'greetings',
    'привет', 'здравствуйте', 'здрасте', 'добрый день', 'доброе утро', 'добрый вечер', 'спасибо', 'спасибо большое',
    'благодарю', 'ок', 'хорошо', 'пока', 'до свидания',
    'hallo', 'guten tag', 'guten morgen', 'danke', 'danke schön', 'danke schon', 'moin', 'servus', 'tschüss',
    'bonjour', 'salut', 'bonsoir', 'merci', 'merci beaucoup',
    'hola', 'buenos días', 'buenos dias', 'buenas tardes', 'gracias', 'muchas gracias',
    'olá', 'ola', 'bom dia', 'obrigado', 'obrigada', 'ciao', 'buongiorno', 'grazie',
  ].map((phrase) => questionKey(phrase)),
);

export function isGreeting(text: string): boolean {
  const key = questionKey(text);
  return key.length === 0 || GREETINGS.has(key);
}

/** A message of the chat as the summary reads it (messages-store's rows have these fields). */
export interface SummaryMessage {
  role: string;
  origin: string | null;
  text: string;
  fallback: boolean;
  handoff: boolean;
  greeting: boolean;
  choices: { options: { label: string }[]; other: string } | null;
}

export interface SummaryInput {
  /** The chat's recent messages, oldest first, the handoff's own message among them or not. */
  messages: readonly SummaryMessage[];
  reason: HandoffReason;
  /** The model's reason for the handoff, when it gave one. */
  note?: string | null | undefined;
  customer: { name: string; email: string | null; identifier: string; channel: string };
}

const REASONS: Record<HandoffReason, string> = {
  customer_request: 'the customer asked for a person',
  fallbacks: 'the AI agent could not answer',
  model: 'the AI agent handed it over',
};

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Whether a message is the team's (a member's reply from the Inbox or through the API), not the agent's. */
function fromTeam(message: SummaryMessage): boolean {
  return message.role === 'assistant' && message.origin !== 'agent' && message.origin !== 'auto';
}

export function handoffSummary({ messages, reason, note, customer }: SummaryInput): string {
  // The stretch since the team last spoke or the agent last handed over (the handoff's own message aside).
  let start = 0;
  const ownHandoff = messages.findLastIndex((message) => message.handoff);
  const upTo = ownHandoff >= 0 && messages.slice(ownHandoff + 1).every((message) => message.role !== 'user') ? ownHandoff : messages.length;
  for (let i = 0; i < upTo; i += 1) {
    const message = messages[i] as SummaryMessage;
    if (fromTeam(message) || message.handoff) start = i + 1;
  }
  const stretch = messages.slice(start, upTo);

  const seen = new Set<string>();
  const asked: string[] = [];
  for (const message of stretch) {
    if (message.role !== 'user' || isGreeting(message.text) || /^[\d\s.,;:!?)(-]*$/.test(message.text)) continue;
    const key = questionKey(message.text);
    if (seen.has(key)) continue;
    seen.add(key);
    asked.push(cut(message.text, QUOTE_MAX));
  }

  const agentReply = stretch.findLast((message) => message.origin === 'agent' && !message.greeting && !message.handoff);
  let agent: string;
  if (!agentReply) agent = 'nothing before the handoff';
  else if (agentReply.choices) agent = `offered: ${agentReply.choices.options.map((option) => cut(option.label, 80)).join('; ')}`;
  else if (agentReply.fallback) agent = `could not answer ("${cut(agentReply.text, QUOTE_MAX)}")`;
  else agent = `answered "${cut(agentReply.text, QUOTE_MAX)}"`;

  const lastAsked = stretch.findLast((message) => message.role === 'user');
  const pickedNone = reason === 'fallbacks' && agentReply?.choices && lastAsked?.text.trim() === '0';
  const why = pickedNone ? 'the customer chose 0 (none of the options offered)' : REASONS[reason];
  const because = note && note.trim() ? `${why}: ${cut(note, QUOTE_MAX)}` : why;

  const card = [customer.name, customer.email ?? 'no e-mail', `id ${customer.identifier}`, customer.channel].map((fact) => cut(fact, 200));
  return [
    `Request: ${asked.length > 0 ? cut(asked.join(' / '), REQUEST_MAX) : '(no question in words)'}`,
    `Agent: ${agent}`,
    `Reason: ${because}`,
    `Customer: ${card.join(' · ')}`,
  ].join('\n');
}
