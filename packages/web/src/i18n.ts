// English and Russian. Visible labels are translated; the accessible names of DESIGN.md stay in English
// (elements of the contract carry an English aria-label).
import { useEffect, useState } from 'preact/hooks';

export type Lang = 'en' | 'ru';
const STORAGE_KEY = 'parley.lang';

const ru: Record<string, string> = {
  Documents: 'Документы',
  'Drop PDF, DOCX, Markdown, text or HTML files here (up to 20 MB each), or pick them.':
    'Перетащите сюда файлы PDF, DOCX, Markdown, текст или HTML (до 20 МБ каждый) или выберите их.',
  'Upload document': 'Загрузить документ',
  Uploading: 'Загружается',
  'Processing…': 'Обрабатывается…',
  Ready: 'Готов',
  Failed: 'Ошибка',
  passages: 'фрагментов',
  'Passages given to the agent': 'Фрагменты, переданные агенту',
  'stored (leave empty to keep)': 'сохранён (оставьте пустым, чтобы не менять)',
  'Optional: an OpenAI-compatible embeddings server instead of the built-in encoder.': 'Необязательно: OpenAI-совместимый сервер эмбеддингов вместо встроенного кодировщика.',
  Email: 'Эл. почта',
  Password: 'Пароль',
  'Sign in': 'Войти',
  'Inbound URL': 'Входящий URL',
  'Chat widget': 'Виджет чата',
  'Paste this tag into the pages of your site:': 'Вставьте этот тег в страницы вашего сайта:',
  'Allowed origins (one per line)': 'Разрешённые источники (по одному в строке)',
  Title: 'Заголовок',
  Colour: 'Цвет',
  Position: 'Положение',
  'Bottom right': 'Справа внизу',
  'Bottom left': 'Слева внизу',
  'Launcher text': 'Текст кнопки',
  'Widget greeting': 'Приветствие виджета',
  'Require verified identity': 'Требовать подтверждённую личность',
  'Identity secret': 'Секрет проверки личности',
  'set; type to replace': 'задан; введите, чтобы заменить',
  'not set': 'не задан',
  'Messages per visitor per minute': 'Сообщений от посетителя в минуту',
  'New visitors per address per minute': 'Новых посетителей с адреса в минуту',
  'Longest message': 'Самое длинное сообщение',
  'Pre-chat form: ask for name and e-mail before the first message': 'Анкета перед чатом: спрашивать имя и эл. почту перед первым сообщением',
  'Name field': 'Поле «Имя»',
  'Email field': 'Поле «Эл. почта»',
  Required: 'Обязательно',
  Optional: 'Необязательно',
  'Verify token': 'Токен проверки',
  'The webhook is registered with the messenger on connect.': 'Вебхук регистрируется в мессенджере при подключении.',
  'Last messenger error': 'Последняя ошибка мессенджера',
  'No messenger errors': 'Ошибок мессенджера нет',
  'Messenger send failures': 'Неотправленные ответы в мессенджеры',
  'Sign out': 'Выйти',
  'Sign in to Parley': 'Вход в Parley',
  Language: 'Язык',
  Overview: 'Обзор',
  Inbox: 'Входящие',
  Channels: 'Каналы',
  'Knowledge bases': 'Базы знаний',
  Deliveries: 'Доставки',
  'Connect channel': 'Подключить канал',
  Kind: 'Тип',
  Name: 'Название',
  Connect: 'Подключить',
  Cancel: 'Отмена',
  Save: 'Сохранить',
  Saved: 'Сохранено',
  'Webhook URL': 'URL вебхука',
  'Signing secret': 'Секрет подписи',
  'Send test event': 'Отправить тестовое событие',
  'Disable agent responses': 'Отключить ответы агента',
  'Agent on': 'Агент включён',
  Role: 'Роль',
  Behavior: 'Поведение',
  Task: 'Задача',
  Greeting: 'Приветствие',
  'Agent language': 'Язык агента',
  Engine: 'Движок',
  'Knowledge base': 'База знаний',
  None: 'Нет',
  'Base URL': 'Базовый URL',
  'Answer threshold': 'Порог уверенности ответа',
  default: 'по умолчанию',
  Model: 'Модель',
  'API key': 'Ключ API',
  'Working hours': 'Рабочие часы',
  'Time zone': 'Часовой пояс',
  'Add interval': 'Добавить интервал',
  Remove: 'Удалить',
  'Auto-reply': 'Автоответ',
  'Delete channel': 'Удалить канал',
  'Delete this channel and all its chats?': 'Удалить этот канал и все его чаты?',
  Delete: 'Удалить',
  'Try the agent': 'Проверить агента',
  'Message to the agent': 'Сообщение агенту',
  Ask: 'Спросить',
  'Receiver answered HTTP': 'Получатель ответил HTTP',
  'No answer from the receiver': 'Получатель не ответил',
  'written, never shown': 'только запись, не показывается',
  'a key is stored': 'ключ сохранён',
  'Channel ID': 'ID канала',
  'Send a message through the API': 'Отправка сообщения через API',
  Chats: 'Чаты',
  Reply: 'Ответ',
  Send: 'Отправить',
  'Pause agent': 'Приостановить агента',
  'Resume agent': 'Возобновить агента',
  'Mark done': 'Отметить выполненным',
  'Mark not done': 'Отметить невыполненным',
  Ban: 'Заблокировать',
  Unban: 'Разблокировать',
  'Mark read': 'Прочитано',
  'Mark unread': 'Непрочитано',
  'Mark correct': 'Верно',
  'Correct the answer': 'Исправить ответ',
  'Correct answer': 'Правильный ответ',
  'Save to knowledge base': 'Сохранить в базу знаний',
  'Add tag': 'Добавить тег',
  Tag: 'Тег',
  Tags: 'Теги',
  'All channels': 'Все каналы',
  'All kinds': 'Все типы',
  'Task done only': 'Только выполненные',
  'Unread only': 'Только непрочитанные',
  Newer: 'Новее',
  Older: 'Старше',
  'Select a chat': 'Выберите чат',
  'No chats': 'Чатов нет',
  paused: 'на паузе',
  done: 'выполнено',
  banned: 'заблокирован',
  Customer: 'Клиент',
  Agent: 'Агент',
  Team: 'Команда',
  'Marked correct': 'Отмечено верным',
  'Corrected': 'Исправлено',
  'Create knowledge base': 'Создать базу знаний',
  Create: 'Создать',
  Entries: 'Записи',
  Search: 'Поиск',
  Question: 'Вопрос',
  Answer: 'Ответ',
  'Synonyms (one per line)': 'Синонимы (по одному в строке)',
  'Add entry': 'Добавить запись',
  Edit: 'Изменить',
  'From a correction': 'Из исправления',
  Rename: 'Переименовать',
  'Delete knowledge base': 'Удалить базу знаний',
  Channel: 'Канал',
  'Webhook deliveries': 'Доставки вебхуков',
  Event: 'Событие',
  Status: 'Статус',
  Attempts: 'Попытки',
  Redeliver: 'Доставить снова',
  'Agent failures': 'Сбои агента',
  'No deliveries': 'Доставок нет',
  'No failures': 'Сбоев нет',
  'Conversations per day': 'Разговоров в день',
  'Agent replies': 'Ответы агента',
  answered: 'ответил',
  'fell back': 'не нашёл ответа',
  Corrections: 'Исправления',
  'Tasks done': 'Задач выполнено',
  'of chats': 'из чатов',
  'last days': 'последних дней',
  Loading: 'Загрузка',
  Open: 'Открыть',
  on: 'вкл.',
  off: 'выкл.',
  'agent off': 'агент выключен',
  'responses disabled': 'ответы отключены',
  'Private app token': 'Токен приватного приложения',
  'API token': 'API-токен',
  'Company domain': 'Домен компании',
  'Connect CRM': 'Подключить CRM',
  Disconnect: 'Отключить',
  'Disconnect this CRM?': 'Отключить эту CRM?',
  Connected: 'Подключена',
  'token stored, never shown': 'токен сохранён и не показывается',
  'Last sync': 'Последняя синхронизация',
  'No syncs yet': 'Синхронизаций ещё не было',
  'Failed syncs': 'Неудачные синхронизации',
  'No CRM connected': 'CRM не подключены',
  Deal: 'Сделка',
  pending: 'в очереди',
  synced: 'передано',
  failed: 'сбой',
  'When a chat is marked done, its contact, a deal and the transcript go to each CRM connected for its channel.':
    'Когда чат отмечен выполненным, контакт, сделка и переписка передаются в каждую CRM, подключённую для его канала.',
};

function initialLang(): Lang {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'ru') return stored;
  return (navigator.language || 'en').toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

let lang: Lang = initialLang();
const listeners = new Set<(lang: Lang) => void>();
document.documentElement.lang = lang;

export function currentLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  lang = next;
  localStorage.setItem(STORAGE_KEY, next);
  document.documentElement.lang = next;
  for (const listener of listeners) listener(next);
}

/** The text in the current language (English is the key). */
export function t(text: string): string {
  return lang === 'ru' ? (ru[text] ?? text) : text;
}

/** Re-renders the component when the language changes. */
export function useLang(): Lang {
  const [value, setValue] = useState(lang);
  useEffect(() => {
    listeners.add(setValue);
    return () => void listeners.delete(setValue);
  }, []);
  return value;
}
