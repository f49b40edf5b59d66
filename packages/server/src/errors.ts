// Domain errors: values with a stable identity and the spec's exact message. The one error handler
// (http/error-handler.ts) turns them into a status and a body; nothing else builds error responses.
// `key` and `params` let the console translate the message (UserLang); the English text is `message`.
import { AuthMessages } from '@parley/contracts';

/** `auth`: body `{ message, code }` (authentication and rate limit); `default`: `{ message, statusCode }`. */
export type ErrorBodyKind = 'auth' | 'default';
export type ErrorParams = Readonly<Record<string, string | number>>;

export class DomainError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly bodyKind: ErrorBodyKind = 'default',
    readonly key: string = 'error',
    readonly params: ErrorParams = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

const auth = (status: number, message: string) => () => new DomainError(status, message, 'auth');
const plain = (status: number, key: string, message: string) => () =>
  new DomainError(status, message, 'default', key);

export const Errors = {
  // Spec, Authentication → authentication errors; Limits → rate response.
  unauthorized: auth(401, AuthMessages.unauthorized),
  paymentRequired: auth(402, AuthMessages.paymentRequired),
  keyNotActive: auth(403, AuthMessages.keyNotActive),
  forbiddenScope: auth(403, AuthMessages.forbidden),
  keyNotFound: auth(404, AuthMessages.keyNotFound),
  tooManyRequests: auth(429, AuthMessages.tooManyRequests),
  // Spec, Errors → Messages by condition (public API).
  chatNotFound: plain(400, 'chatNotFound', 'Chat not found'),
  tagNotFound: plain(400, 'tagNotFound', 'Tag not found'),
  tagAlreadyExist: plain(400, 'tagAlreadyExist', 'Tag already exist'),
  chatAlreadyBanned: plain(400, 'chatAlreadyBanned', 'Chat already banned'),
  chatNotBanned: plain(400, 'chatNotBanned', 'Chat not banned'),
  messageNotFound: plain(400, 'messageNotFound', 'Message not found'),
  messageAlreadyDisliked: plain(400, 'messageAlreadyDisliked', 'Message already disliked'),
  messageAlreadyLiked: plain(400, 'messageAlreadyLiked', 'Message already liked'),
  knowledgeBaseNotConnected: plain(400, 'knowledgeBaseNotConnected', 'Knowledge base not connected'),
  invalidCursor: plain(400, 'invalidCursor', 'Invalid cursor'),
  notQueued: plain(503, 'notQueued', 'The command could not be queued; retry later'),
  tooManyFiles: plain(400, 'tooManyFiles', 'At most 10 files per message'),
  fileTooLarge: plain(413, 'fileTooLarge', 'File too large: at most 10 MB per file'),
  fileTypeNotAccepted: (name: string) =>
    new DomainError(400, `File type not accepted: ${name}`, 'default', 'fileTypeNotAccepted', { name }),
  multipartField: (message: string) => new DomainError(400, message, 'default', 'multipartField'),
  malformedMultipart: (reason: string) =>
    new DomainError(400, `Malformed multipart/form-data body: ${reason}`, 'default', 'malformedMultipart', { reason }),
  uploadsBusy: plain(503, 'uploadsBusy', 'Too many uploads in progress; retry shortly'),
  // Operator API.
  adminUnauthorized: plain(401, 'unauthorized', 'Unauthorized'),
  // GET /metrics with METRICS_TOKEN set.
  metricsUnauthorized: plain(401, 'unauthorized', 'Unauthorized'),
  // POST /admin/v1/backup (operations.md, Backups).
  backupNeedsPgDump: plain(400, 'backupNeedsPgDump', 'The database is a PostgreSQL server: back it up with pg_dump'),
  backupPathNotAbsolute: plain(400, 'backupPathNotAbsolute', 'file must be an absolute path on the server'),
  backupRefused: (message: string) => plain(400, 'backupRefused', message)(),
  accountExists: plain(409, 'accountExists', 'An account with this e-mail already exists'),
  accountNotFound: plain(404, 'accountNotFound', 'Account not found'),
  apiKeyNotFound: plain(404, 'apiKeyNotFound', 'API key not found'),
  // Console API.
  consoleUnauthorized: plain(401, 'unauthorized', 'Unauthorized'),
  csrfHeaderMissing: plain(403, 'csrfHeaderMissing', 'A call authenticated by the session cookie needs the header X-Requested-With: parley'),
  invalidCredentials: plain(401, 'invalidCredentials', 'Invalid e-mail or password'),
  loginLocked: (minutes: number) =>
    new DomainError(
      429,
      `Too many failed logins for this e-mail; try again in ${minutes} min`,
      'default',
      'loginLocked',
      { minutes },
    ),
  loginRateLimited: plain(429, 'loginRateLimited', 'Too many login attempts from this address; try again later'),
  channelNotFound: plain(404, 'channelNotFound', 'Channel not found'),
  // Team (issue #25).
  forbiddenForRole: plain(403, 'forbiddenForRole', 'Forbidden for your role'),
  memberNotFound: plain(404, 'memberNotFound', 'Member not found'),
  sessionNotFound: plain(404, 'sessionNotFound', 'Session not found'),
  // Customer data (issue #45, item 5).
  customerNotFound: plain(404, 'customerNotFound', 'Customer not found'),
  customerQueryInvalid: plain(400, 'customerQueryInvalid', 'Give either email or chatId'),
  memberExists: plain(409, 'memberExists', 'This e-mail is a member already'),
  ownerRoleFixed: plain(400, 'ownerRoleFixed', "The owner's role cannot change"),
  ownerNotRemovable: plain(400, 'ownerNotRemovable', 'The owner cannot be removed: an account always keeps its owner'),
  invitationUnknown: plain(400, 'invitationUnknown', 'This invitation link is not valid: it is unknown or was withdrawn'),
  invitationNotFound: plain(404, 'invitationNotFound', 'Invitation not found'),
  invitationUsed: plain(400, 'invitationUsed', 'This invitation has already been used; sign in instead'),
  invitationExpired: plain(400, 'invitationExpired', 'This invitation has expired; ask for a new one'),
  // Alerts and follow-through (issue #33).
  wrongPassword: plain(400, 'wrongPassword', 'Wrong password'),
  // Two-factor sign-in (issue #45, item 1).
  twoFactorRequired: plain(403, 'twoFactorRequired', 'Two-factor sign-in is required'),
  invalidTwoFactorCode: plain(400, 'invalidTwoFactorCode', 'Invalid two-factor code'),
  invalidTwoFactorLogin: plain(401, 'invalidTwoFactorCode', 'Invalid two-factor code'),
  twoFactorChallengeInvalid: plain(401, 'twoFactorChallengeInvalid', 'Sign-in expired; log in again'),
  twoFactorOneCode: plain(400, 'twoFactorOneCode', 'Give either code or recoveryCode'),
  twoFactorAlreadyOn: plain(409, 'twoFactorAlreadyOn', 'Two-factor sign-in is already on'),
  twoFactorNotSetUp: plain(409, 'twoFactorNotSetUp', 'Set up two-factor sign-in first'),
  twoFactorOff: plain(409, 'twoFactorOff', 'Two-factor sign-in is off'),
  // Single sign-on (issue #45, item 2).
  ssoIssuerInvalid: plain(400, 'ssoIssuerInvalid', 'issuer must be an https URL (http only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)'),
  ssoClientIdRequired: plain(400, 'ssoClientIdRequired', 'clientId is required with an issuer'),
  ssoPasswordLoginNeedsSso: plain(400, 'ssoPasswordLoginNeedsSso', 'passwordLogin can be false only while single sign-on is on (issuer and clientId)'),
  passwordLoginOff: plain(403, 'passwordLoginOff', 'Password sign-in is off for this account: sign in with single sign-on'),
  ssoDiscoverQuery: plain(400, 'ssoDiscoverQuery', 'Give either account or email'),
  resetLinkInvalid: plain(400, 'resetLinkInvalid', 'This password reset link is used, unknown or expired; ask for a new one'),
  assigneeNotFound: plain(400, 'assigneeNotFound', 'memberId: no active member of this account has this id'),
  cannedResponseNotFound: plain(404, 'cannedResponseNotFound', 'Saved reply not found'),
  shortCodeTaken: plain(409, 'shortCodeTaken', 'shortCode: a saved reply with this short code exists already'),
  consoleChatNotFound: plain(404, 'consoleChatNotFound', 'Chat not found'),
  consoleMessageNotFound: plain(404, 'consoleMessageNotFound', 'Message not found'),
  consoleTagNotFound: plain(404, 'consoleTagNotFound', 'Tag not found'),
  unknownChannelKind: (kind: string, kinds: readonly string[]) =>
    new DomainError(400, `Unknown channel kind "${kind}"; use one of: ${kinds.join(', ')}`, 'default', 'unknownChannelKind', {
      kind,
      kinds: kinds.join(', '),
    }),
  knowledgeBaseNotFound: plain(404, 'knowledgeBaseNotFound', 'Knowledge base not found'),
  knowledgeBaseRefNotFound: plain(400, 'knowledgeBaseRefNotFound', 'knowledgeBaseId: knowledge base not found'),
  entryNotFound: plain(404, 'entryNotFound', 'Entry not found'),
  learnedQuestionNotFound: plain(404, 'learnedQuestionNotFound', 'Learned question not found'),
  tooManySynonyms: plain(400, 'tooManySynonyms', 'synonyms: at most 20 per entry'),
  documentNotFound: plain(404, 'documentNotFound', 'Document not found'),
  documentTooLarge: plain(413, 'documentTooLarge', 'File too large: at most 20 MB'),
  documentFileMissing: plain(400, 'documentFileMissing', 'file: send one file in the multipart/form-data field "file"'),
  tooManyDocumentFiles: plain(400, 'tooManyDocumentFiles', 'One file per upload, in the field "file"'),
  documentTypeNotAccepted: (name: string, accepted: string) =>
    new DomainError(400, `File type not accepted: ${name}. Accepted: ${accepted}`, 'default', 'documentTypeNotAccepted', { name, accepted }),
  // Replay and knowledge gaps (issue #37).
  replayNotFound: plain(404, 'replayNotFound', 'Replay not found'),
  replayItemNotFound: plain(404, 'replayItemNotFound', 'Replay item not found'),
  replayFileInvalid: (reason: string) => new DomainError(400, `file: ${reason}`, 'default', 'replayFileInvalid', { reason }),
  replayFileTooLarge: plain(413, 'replayFileTooLarge', 'File too large: at most 20 MB'),
  tooManyReplayFiles: plain(400, 'tooManyReplayFiles', 'One file per replay, in the field "file"'),
  replaySourceMissing: plain(400, 'replaySourceMissing', 'source: send "history", or a CSV or JSON file in the multipart/form-data field "file"'),
  replaySourceTwice: plain(400, 'replaySourceTwice', 'source and days go with "history" only: an uploaded file is the source'),
  agentEngineFailed: (reason: string) =>
    new DomainError(502, `The agent engine failed: ${reason}`, 'default', 'agentEngineFailed', { reason }),
  invalidTimeZone: (timeZone: string) =>
    new DomainError(400, `workingHours.timeZone: unknown time zone "${timeZone}"`, 'default', 'invalidTimeZone', {
      timeZone,
    }),
  invalidInterval: (index: number) =>
    new DomainError(
      400,
      `workingHours.intervals[${index}]: "from" must be before "to"`,
      'default',
      'invalidInterval',
      { index },
    ),
  // Team hours (issue #44, item 2).
  invalidTeamTimeZone: (timezone: string) =>
    new DomainError(400, `timezone: unknown time zone "${timezone}"`, 'default', 'invalidTeamTimeZone', { timezone }),
  invalidTeamHoursRange: (day: string, index: number) =>
    new DomainError(400, `weekly.${day}[${index}]: "from" must be before "to"`, 'default', 'invalidTeamHoursRange', { day, index }),
  /** `field`: the setting holding the URL (`webhookUrl`, `agentEngine.baseUrl`). */
  webhookUrlInvalid: (field = 'webhookUrl') =>
    new DomainError(400, `${field} must be an http or https URL`, 'default', 'webhookUrlInvalid', { field }),
  webhookUrlPrivate: (address: string, field = 'webhookUrl') =>
    new DomainError(
      400,
      `${field} points to a private, loopback or link-local address (${address}); use a public URL`,
      'default',
      'webhookUrlPrivate',
      { address, field },
    ),
  webhookUrlUnresolvable: (host: string, field = 'webhookUrl') =>
    new DomainError(400, `${field} host "${host}" cannot be resolved`, 'default', 'webhookUrlUnresolvable', { host, field }),
  webhookNotSet: plain(400, 'webhookNotSet', 'The channel has no webhook URL'),
  deliveryNotFound: plain(404, 'deliveryNotFound', 'Delivery not found'),
  deliveryPending: plain(400, 'deliveryPending', 'The delivery is still pending'),
  invalidRange: plain(400, 'invalidRange', '"from" must be before "to"'),
  // Reports (issue #36).
  reportDateInvalid: (field: string) =>
    new DomainError(400, `"${field}" is not a date: use YYYY-MM-DD`, 'default', 'reportDateInvalid', { field }),
  reportRangeReversed: plain(400, 'reportRangeReversed', '"to" must be the same day as "from" or after it'),
  reportRangeTooLong: (days: number) =>
    new DomainError(400, `The report covers at most ${days} days: choose a shorter range`, 'default', 'reportRangeTooLong', { days }),
  csatNotAsked: plain(404, 'csatNotAsked', 'No conversation to rate'),
  csatAlreadyRated: plain(409, 'csatAlreadyRated', 'This conversation is already rated'),
  // Agent actions (issue #43).
  actionNotFound: plain(404, 'actionNotFound', 'Action not found'),
  actionNameTaken: plain(409, 'actionNameTaken', 'name: an action with this name exists already'),
  actionInvalid: (reason: string) => new DomainError(400, reason, 'default', 'actionInvalid', { reason }),
  actionParameterInvalid: (reason: string) =>
    new DomainError(400, `parameters: ${reason}`, 'default', 'actionParameterInvalid', { reason }),
  actionRefNotFound: (field: string, id: string) =>
    new DomainError(400, `${field}: action not found: ${id}`, 'default', 'actionRefNotFound', { field, id }),
  openApiInvalid: (reason: string) => new DomainError(400, `openapi: ${reason}`, 'default', 'openApiInvalid', { reason }),
  openApiOperationNotFound: (operationId: string) =>
    new DomainError(400, `operations: the document has no operation "${operationId}"`, 'default', 'openApiOperationNotFound', { operationId }),
  // Messenger connectors.
  messengerUnverified: plain(401, 'messengerUnverified', 'Unauthorized'),
  messengerBadBody: plain(400, 'messengerBadBody', 'The body is not JSON'),
  messengerVerifyTokenWrong: plain(403, 'messengerVerifyTokenWrong', 'Forbidden'),
  messengerRefused: (description: string) =>
    new DomainError(400, `The messenger refused: ${description}`, 'default', 'messengerRefused', { description }),
  messengerUnavailable: (description: string) =>
    new DomainError(502, `The messenger could not be reached: ${description}`, 'default', 'messengerUnavailable', { description }),
  // CRM connections.
  crmRefused: (description: string) =>
    new DomainError(400, `The CRM refused: ${description}`, 'default', 'crmRefused', { description }),
  crmUnavailable: (description: string) =>
    new DomainError(502, `The CRM could not be reached: ${description}`, 'default', 'crmUnavailable', { description }),
  crmConnectionNotFound: plain(404, 'crmConnectionNotFound', 'CRM connection not found'),
  crmChannelNotFound: (channelId: string) =>
    new DomainError(400, `channelIds: channel not found: ${channelId}`, 'default', 'crmChannelNotFound', { channelId }),
  unknownCrmKind: (kind: string, kinds: readonly string[]) =>
    new DomainError(400, `Unknown CRM kind "${kind}"; use one of: ${kinds.join(', ')}`, 'default', 'unknownCrmKind', {
      kind,
      kinds: kinds.join(', '),
    }),
  widgetIdentitySecretMissing: plain(
    400,
    'widgetIdentitySecretMissing',
    'widget.identitySecret is needed when widget.requireVerifiedIdentity is true',
  ),
  // Chat widget, visitor API (shown to visitors in the frame).
  widgetNotFound: plain(404, 'widgetNotFound', 'Chat widget not found'),
  widgetOriginNotAllowed: plain(403, 'widgetOriginNotAllowed', 'This website is not allowed to show this chat'),
  widgetIdentityRequired: plain(403, 'widgetIdentityRequired', 'This chat is only for signed-in customers: a verified identity is required'),
  widgetIdentityInvalid: plain(403, 'widgetIdentityInvalid', 'Identity verification failed: identifierHash does not match identifier'),
  visitorTokenInvalid: plain(401, 'visitorTokenInvalid', 'Your chat session is no longer valid; reload the page to start again'),
  widgetTooManyMessages: (limit: number) =>
    new DomainError(429, `Too many messages: at most ${limit} a minute; wait a moment and try again`, 'default', 'widgetTooManyMessages', { limit }),
  widgetTooManyVisitors: plain(429, 'widgetTooManyVisitors', 'Too many new conversations from your network; try again in a minute'),
  widgetMessageTooLong: (limit: number) =>
    new DomainError(400, `Message too long: at most ${limit} characters`, 'default', 'widgetMessageTooLong', { limit }),
  widgetMessageEmpty: plain(400, 'widgetMessageEmpty', 'Type a message or attach a file'),
  widgetConversationNotFound: plain(404, 'widgetConversationNotFound', 'Conversation not found'),
  widgetDetailsRequired: (fields: readonly string[]) =>
    new DomainError(400, `Fill in the form first: ${fields.join(' and ')} ${fields.length > 1 ? 'are' : 'is'} required`, 'default', 'widgetDetailsRequired', {
      fields: fields.join(', '),
    }),
} as const;
