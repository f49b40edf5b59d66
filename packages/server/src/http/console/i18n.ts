// Console error messages by language (header `UserLang`; unknown or missing → English, the domain's text).
import type { ErrorObject } from 'ajv';
import localizeRuModule from 'ajv-i18n/localize/ru/index.js';
import type { DomainError, ErrorParams } from '../../errors.ts';

// ajv-i18n is CommonJS (`module.exports = function`); its typings describe an ES default export.
const localizeRu = localizeRuModule as unknown as (errors: ErrorObject[]) => void;

export const CONSOLE_LANGUAGES = ['en', 'ru'] as const;
export type ConsoleLanguage = (typeof CONSOLE_LANGUAGES)[number];

export function consoleLanguage(header: string | string[] | undefined): ConsoleLanguage {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase().slice(0, 2);
  return value === 'ru' ? 'ru' : 'en';
}

const ru: Record<string, (p: ErrorParams) => string> = {
  unauthorized: () => 'Требуется авторизация',
  csrfHeaderMissing: () => 'Вызову с cookie сессии нужен заголовок X-Requested-With: parley',
  invalidCredentials: () => 'Неверный e-mail или пароль',
  loginLocked: (p) => `Слишком много неудачных попыток входа для этого e-mail; повторите через ${p.minutes} мин`,
  loginRateLimited: () => 'Слишком много попыток входа с этого адреса; повторите позже',
  channelNotFound: () => 'Канал не найден',
  forbiddenForRole: () => 'Недоступно для вашей роли',
  memberNotFound: () => 'Участник не найден',
  sessionNotFound: () => 'Сеанс не найден',
  customerNotFound: () => 'Клиент не найден',
  customerQueryInvalid: () => 'Укажите либо email, либо chatId',
  memberExists: () => 'Этот e-mail уже есть среди участников',
  ownerRoleFixed: () => 'Роль владельца изменить нельзя',
  ownerNotRemovable: () => 'Владельца удалить нельзя: у аккаунта всегда есть владелец',
  invitationUnknown: () => 'Ссылка приглашения недействительна: она неизвестна или отозвана',
  invitationNotFound: () => 'Приглашение не найдено',
  invitationUsed: () => 'Это приглашение уже использовано; войдите в аккаунт',
  invitationExpired: () => 'Срок приглашения истёк; попросите новое',
  wrongPassword: () => 'Неверный пароль',
  twoFactorRequired: () => 'Требуется двухфакторный вход',
  invalidTwoFactorCode: () => 'Неверный код двухфакторного входа',
  twoFactorChallengeInvalid: () => 'Время входа истекло; войдите снова',
  twoFactorOneCode: () => 'Укажите либо code, либо recoveryCode',
  twoFactorAlreadyOn: () => 'Двухфакторный вход уже включён',
  twoFactorNotSetUp: () => 'Сначала настройте двухфакторный вход',
  twoFactorOff: () => 'Двухфакторный вход выключен',
  ssoIssuerInvalid: () => 'issuer должен быть адресом https (http — только при WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)',
  ssoClientIdRequired: () => 'С issuer нужен clientId',
  ssoPasswordLoginNeedsSso: () => 'passwordLogin можно выключить, только когда единый вход включён (issuer и clientId)',
  passwordLoginOff: () => 'Вход по паролю в этом аккаунте выключен: войдите через единый вход',
  ssoDiscoverQuery: () => 'Укажите либо account, либо email',
  resetLinkInvalid: () => 'Ссылка для сброса пароля использована, неизвестна или устарела; запросите новую',
  assigneeNotFound: () => 'memberId: в аккаунте нет активного участника с таким id',
  cannedResponseNotFound: () => 'Сохранённый ответ не найден',
  shortCodeTaken: () => 'shortCode: сохранённый ответ с таким коротким кодом уже есть',
  consoleChatNotFound: () => 'Чат не найден',
  consoleMessageNotFound: () => 'Сообщение не найдено',
  consoleTagNotFound: () => 'Тег не найден',
  unknownChannelKind: (p) => `Неизвестный тип канала «${p.kind}»; допустимые: ${p.kinds}`,
  knowledgeBaseNotFound: () => 'База знаний не найдена',
  knowledgeBaseRefNotFound: () => 'knowledgeBaseId: база знаний не найдена',
  entryNotFound: () => 'Запись не найдена',
  learnedQuestionNotFound: () => 'Выученный вопрос не найден',
  tooManySynonyms: () => 'synonyms: не больше 20 на запись',
  documentNotFound: () => 'Документ не найден',
  documentTooLarge: () => 'Файл слишком большой: не более 20 МБ',
  replayNotFound: () => 'Прогон не найден',
  replayItemNotFound: () => 'Вопрос прогона не найден',
  replayFileTooLarge: () => 'Файл слишком большой: не более 20 МБ',
  documentFileMissing: () => 'file: отправьте один файл в поле «file» (multipart/form-data)',
  tooManyDocumentFiles: () => 'Один файл за загрузку, в поле «file»',
  documentTypeNotAccepted: (p) => `Тип файла не принимается: ${p.name}. Принимаются: ${p.accepted}`,
  invalidTimeZone: (p) => `workingHours.timeZone: неизвестный часовой пояс «${p.timeZone}»`,
  invalidInterval: (p) => `workingHours.intervals[${p.index}]: «from» должно быть раньше «to»`,
  invalidTeamTimeZone: (p) => `timezone: неизвестный часовой пояс «${p.timezone}»`,
  invalidTeamHoursRange: (p) => `weekly.${p.day}[${p.index}]: «from» должно быть раньше «to»`,
  webhookUrlInvalid: (p) => `${p.field} должен быть URL с http или https`,
  webhookUrlPrivate: (p) => `${p.field} указывает на частный, локальный или link-local адрес (${p.address}); укажите публичный URL`,
  webhookUrlUnresolvable: (p) => `Не удалось найти адрес хоста ${p.field} «${p.host}»`,
  webhookNotSet: () => 'У канала не задан URL вебхука',
  deliveryNotFound: () => 'Доставка не найдена',
  deliveryPending: () => 'Доставка ещё не завершена',
  invalidRange: () => '«from» должно быть раньше «to»',
  reportDateInvalid: (p) => `«${p.field}» — не дата: укажите ГГГГ-ММ-ДД`,
  reportRangeReversed: () => '«to» должно быть тем же днём, что «from», или позже',
  reportRangeTooLong: (p) => `Отчёт охватывает не более ${p.days} дней: выберите диапазон короче`,
  messengerRefused: (p) => `Мессенджер отказал: ${p.description}`,
  messengerUnavailable: (p) => `Мессенджер недоступен: ${p.description}`,
  crmRefused: (p) => `CRM отказала: ${p.description}`,
  crmUnavailable: (p) => `CRM недоступна: ${p.description}`,
  crmConnectionNotFound: () => 'Подключение CRM не найдено',
  crmChannelNotFound: (p) => `channelIds: канал не найден: ${p.channelId}`,
  unknownCrmKind: (p) => `Неизвестный тип CRM «${p.kind}»; допустимые: ${p.kinds}`,
  agentEngineFailed: (p) => `Движок агента не ответил: ${p.reason}`,
  widgetIdentitySecretMissing: () => 'widget.identitySecret нужен, когда widget.requireVerifiedIdentity = true',
  actionNotFound: () => 'Действие не найдено',
  actionNameTaken: () => 'name: действие с таким именем уже есть',
  actionRefNotFound: (p) => `${p.field}: действие не найдено: ${p.id}`,
  openApiOperationNotFound: (p) => `operations: в документе нет операции «${p.operationId}»`,
};

export function translateError(error: DomainError, lang: ConsoleLanguage): string {
  if (lang === 'en') return error.message;
  return ru[error.key]?.(error.params) ?? error.message;
}

/** Validation problems in the console's language (Ajv's own texts through ajv-i18n, plus ours). */
export function translateValidation(errors: readonly ErrorObject[], lang: ConsoleLanguage): ErrorObject[] {
  if (lang === 'en') return [...errors];
  const copies = errors.map((e) => ({ ...e }));
  localizeRu(copies);
  return copies;
}

export const ruValidationTemplates = {
  unknownProperty: (name: string) => `свойство ${name} не допускается`,
  required: (name: string) => `${name} обязательно`,
  enum: (path: string, values: string) => `${path} должно быть одним из: ${values}`,
  tooDeep: (limit: number) => `Тело запроса вложено глубже ${limit} уровней`,
};
