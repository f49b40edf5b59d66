// Counted nouns: "1 passage", "2 passages" (English), and Russian's three forms (1 фрагмент, 2 фрагмента, 5 фрагментов).
import { currentLang } from './i18n.ts';

/** Russian forms [one, few, many] of the English singular nouns the pages count. */
const RU: Record<string, [string, string, string]> = {
  passage: ['фрагмент', 'фрагмента', 'фрагментов'],
  entry: ['запись', 'записи', 'записей'],
  chat: ['чат', 'чата', 'чатов'],
  document: ['документ', 'документа', 'документов'],
  attempt: ['попытка', 'попытки', 'попыток'],
  conversation: ['разговор', 'разговора', 'разговоров'],
  rating: ['оценка', 'оценки', 'оценок'],
  'direct answer': ['прямой ответ', 'прямых ответа', 'прямых ответов'],
  'agent answer': ['ответ агента', 'ответа агента', 'ответов агента'],
  'answer after a choice': ['ответ после выбора', 'ответа после выбора', 'ответов после выбора'],
  'clarifying question': ['уточняющий вопрос', 'уточняющих вопроса', 'уточняющих вопросов'],
  fallback: ['запасной ответ', 'запасных ответа', 'запасных ответов'],
  handoff: ['передача команде', 'передачи команде', 'передач команде'],
  day: ['день', 'дня', 'дней'],
  hour: ['час', 'часа', 'часов'],
  minute: ['минута', 'минуты', 'минут'],
  customer: ['клиент', 'клиента', 'клиентов'],
  time: ['раз', 'раза', 'раз'],
};

function ruForm(count: number, forms: [string, string, string]): string {
  const tens = count % 100;
  const ones = count % 10;
  if (tens >= 11 && tens <= 14) return forms[2];
  if (ones === 1) return forms[0];
  if (ones >= 2 && ones <= 4) return forms[1];
  return forms[2];
}

/** `count` and its noun in the current language: plural(1, 'passage', 'passages') → "1 passage". */
export function plural(count: number, one: string, many: string): string {
  const forms = RU[one];
  if (currentLang() === 'ru' && forms) return `${count} ${ruForm(count, forms)}`;
  return `${count} ${count === 1 ? one : many}`;
}

/** Minutes as a reader says them: spokenMinutes(1440) → "1 day", 150 → "2 hours 30 minutes" (in the page's language). */
export function spokenMinutes(total: number): string {
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const minutes = total % 60;
  const parts = [
    days > 0 ? plural(days, 'day', 'days') : '',
    hours > 0 ? plural(hours, 'hour', 'hours') : '',
    minutes > 0 || total === 0 ? plural(minutes, 'minute', 'minutes') : '',
  ];
  return parts.filter(Boolean).join(' ');
}
