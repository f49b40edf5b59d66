// The console's validation errors as sentences a person reads in a form: the field's name, then its rule
// (`Short code: letters, digits, _ and - only, up to 50`), in the web account's languages. The other surfaces keep
// Ajv's terse texts (http/validation.ts), as the spec's clients expect.
import type { ErrorObject } from 'ajv';
import { AI_LANG_PATTERN, ASSIGNEE_FILTER_PATTERN, SHORT_CODE_PATTERN, TELEGRAM_BOT_TOKEN_PATTERN } from '@parley/contracts';
import type { ConsoleLanguage } from './i18n.ts';

type Texts = Record<ConsoleLanguage, string>;

/** Names of the fields the web account's forms send (the last segment of the path), as its labels say them. */
const LABELS: Record<string, Texts> = {
  shortCode: { en: 'Short code', ru: 'Короткий код' },
  text: { en: 'Text', ru: 'Текст' },
  name: { en: 'Name', ru: 'Имя' },
  email: { en: 'Email', ru: 'Эл. почта' },
  password: { en: 'Password', ru: 'Пароль' },
  question: { en: 'Question', ru: 'Вопрос' },
  answer: { en: 'Answer', ru: 'Ответ' },
  language: { en: 'Language', ru: 'Язык' },
  aiLang: { en: 'Language of the agent', ru: 'Язык агента' },
  webhookUrl: { en: 'Webhook URL', ru: 'URL вебхука' },
  baseUrl: { en: 'Base URL', ru: 'Базовый URL' },
  apiKey: { en: 'API key', ru: 'API-ключ' },
  model: { en: 'Model', ru: 'Модель' },
  greeting: { en: 'Greeting', ru: 'Приветствие' },
  autoReply: { en: 'Auto-reply', ru: 'Автоответ' },
  handoffMessage: { en: 'Handoff message', ru: 'Сообщение о передаче' },
  handoffAfterFallbacks: { en: 'Hand off after fallbacks', ru: 'Передать после ответов-заглушек' },
  clarifyChoices: { en: 'Choices offered', ru: 'Число вариантов' },
  clarifyPrompt: { en: 'Clarifying question', ru: 'Уточняющий вопрос' },
  allowedOrigins: { en: 'Allowed origins', ru: 'Разрешённые источники' },
  origin: { en: 'Origin', ru: 'Источник' },
  title: { en: 'Title', ru: 'Заголовок' },
  color: { en: 'Colour', ru: 'Цвет' },
  launcherText: { en: 'Launcher text', ru: 'Текст кнопки' },
  messagesPerMinute: { en: 'Messages per minute', ru: 'Сообщений в минуту' },
  botToken: { en: 'Bot token', ru: 'Токен бота' },
  token: { en: 'Token', ru: 'Токен' },
  companyDomain: { en: 'Company domain', ru: 'Домен компании' },
  role: { en: 'Role', ru: 'Роль' },
  behavior: { en: 'Behavior', ru: 'Поведение' },
  task: { en: 'Task', ru: 'Задача' },
  from: { en: 'From', ru: 'С' },
  to: { en: 'To', ru: 'До' },
  id: { en: 'Id', ru: 'Id' },
  limit: { en: 'Limit', ru: 'Лимит' },
  offset: { en: 'Offset', ru: 'Смещение' },
};

/** What a pattern asks for, in words; a pattern not listed is "has the wrong form". */
const PATTERNS: Record<string, Texts> = {
  [SHORT_CODE_PATTERN]: { en: 'letters, digits, _ and - only, up to 50', ru: 'только буквы, цифры, _ и -, не более 50' },
  [AI_LANG_PATTERN]: { en: 'a language code such as en or pt-BR', ru: 'код языка, например en или pt-BR' },
  [TELEGRAM_BOT_TOKEN_PATTERN]: { en: 'a bot token as BotFather gives it (digits, a colon, then the key)', ru: 'токен бота в виде, который даёт BotFather (цифры, двоеточие, ключ)' },
  [ASSIGNEE_FILTER_PATTERN]: { en: 'me, none or a member id', ru: 'me, none или id участника' },
  '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$': { en: 'letters, digits and - only, as in <name>.pipedrive.com', ru: 'только буквы, цифры и -, как в <name>.pipedrive.com' },
  '^https?://': { en: 'a URL starting with http:// or https://', ru: 'URL, начинающийся с http:// или https://' },
  '^https?://[^/?#\\s@]+$': { en: 'scheme and host only, e.g. https://shop.example', ru: 'только схема и хост, например https://shop.example' },
  '^#[0-9a-fA-F]{6}$': { en: 'a colour as #rrggbb', ru: 'цвет в виде #rrggbb' },
  '^[\\x21-\\x7E]+$': { en: 'printable characters without spaces', ru: 'печатные символы без пробелов' },
  '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$': { en: 'a time as HH:MM', ru: 'время в виде ЧЧ:ММ' },
};

const FORMATS: Record<string, Texts> = {
  email: { en: 'an e-mail address', ru: 'адрес эл. почты' },
  uuid: { en: 'an id (UUID)', ru: 'id (UUID)' },
  uri: { en: 'a URL', ru: 'URL' },
  'date-time': { en: 'a date and time (ISO 8601)', ru: 'дата и время (ISO 8601)' },
};

const TYPES: Record<string, Texts> = {
  string: { en: 'must be text', ru: 'должно быть текстом' },
  integer: { en: 'must be a whole number', ru: 'должно быть целым числом' },
  number: { en: 'must be a number', ru: 'должно быть числом' },
  boolean: { en: 'must be true or false', ru: 'должно быть true или false' },
  object: { en: 'must be an object', ru: 'должно быть объектом' },
  array: { en: 'must be a list', ru: 'должно быть списком' },
};

function characters(count: number, lang: ConsoleLanguage): string {
  if (lang === 'ru') return `${count} ${count % 10 === 1 && count % 100 !== 11 ? 'символ' : 'символов'}`;
  return `${count} ${count === 1 ? 'character' : 'characters'}`;
}

/** `shortCode` → `Short code`; an unknown name is spelled out from its camel case. */
function labelOf(path: string, lang: ConsoleLanguage): string {
  const segments = path.split('.').filter((segment) => !/^\d+$/.test(segment));
  const last = segments.at(-1) ?? path;
  const known = LABELS[last];
  if (known) return known[lang];
  const words = last.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The rule an error broke, or undefined when Ajv's own words are kept (unknown and missing properties). */
function ruleOf(error: ErrorObject, lang: ConsoleLanguage): string | undefined {
  const p = error.params as Record<string, unknown>;
  const ru = lang === 'ru';
  switch (error.keyword) {
    case 'pattern':
      return PATTERNS[String(p.pattern)]?.[lang] ?? (ru ? 'неверный формат' : 'has the wrong form');
    case 'format':
      return FORMATS[String(p.format)]?.[lang] ?? (ru ? 'неверный формат' : 'has the wrong form');
    case 'minLength':
      if (p.limit === 1) return ru ? 'не может быть пустым' : 'cannot be empty';
      return ru ? `не менее ${characters(Number(p.limit), lang)}` : `at least ${characters(Number(p.limit), lang)}`;
    case 'maxLength':
      return ru ? `не более ${characters(Number(p.limit), lang)}` : `up to ${characters(Number(p.limit), lang)}`;
    case 'minimum':
      return ru ? `не меньше ${String(p.limit)}` : `at least ${String(p.limit)}`;
    case 'maximum':
      return ru ? `не больше ${String(p.limit)}` : `at most ${String(p.limit)}`;
    case 'maxItems':
      return ru ? `не более ${String(p.limit)} элементов` : `up to ${String(p.limit)} items`;
    case 'minItems':
      return ru ? `не менее ${String(p.limit)} элементов` : `at least ${String(p.limit)} items`;
    case 'type':
      return TYPES[String(p.type)]?.[lang];
    case 'enum':
      return `${ru ? 'одно из' : 'one of'} ${(p.allowedValues as unknown[]).join(', ')}`;
    default:
      return undefined;
  }
}

/**
 * The sentence of one console validation error, or undefined to keep the generic one: `<Label>: <rule>`.
 * `path` is the field's dotted path (e.g. `settings.aiLang`, or the request part for a whole-part error).
 */
export function consoleValidationSentence(error: ErrorObject, path: string, lang: ConsoleLanguage): string | undefined {
  const rule = ruleOf(error, lang);
  return rule === undefined ? undefined : `${labelOf(path, lang)}: ${rule}`;
}
