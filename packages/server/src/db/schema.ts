// The one Drizzle schema. IDs are generated in application code (UUIDv7), so the SQL runs unchanged on
// PostgreSQL 15+ and on PGlite.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  type AnyPgColumn,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow();

export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey(),
    /** Stored lower-cased: one account per e-mail whatever its case. */
    email: text('email').notNull(),
    subscriptionActive: boolean('subscription_active').notNull().default(true),
    /** Where every handoff is posted as a chat-tool message (Slack / Mattermost / Teams incoming webhook); null: none. */
    alertWebhookUrl: text('alert_webhook_url'),
    /** A conversation ends after this many minutes without a customer message (1–10080; migration 0027). */
    resolutionQuietMinutes: integer('resolution_quiet_minutes').notNull().default(1440),
    /** Conversations ended more than this many days ago are deleted with their messages and files (7–3650); null: kept. */
    retentionDays: integer('retention_days'),
    /** Every member signs in with a second factor; one without it gets a session that can only set it up (issue #45). */
    requireTwoFactor: boolean('require_two_factor').notNull().default(false),
    /** The account's sign-in page is `/login/<slug>` (issue #45, single sign-on): made at random, read-only. */
    slug: text('slug').notNull().default(sql`substr(md5(random()::text || clock_timestamp()::text), 1, 12)`),
    /** Auto-assignment (issue #44, migration 0040): `off`, `round_robin` or `least_busy`. */
    assignmentMode: text('assignment_mode').notNull().default('off'),
    /** Open assigned chats per member (1–100) unless the member has a capacity of their own. */
    assignmentCapacity: integer('assignment_capacity').notNull().default(10),
    /** Only members whose availability is `available` get chats. */
    assignmentOnlyAvailable: boolean('assignment_only_available').notNull().default(true),
    /** Team hours `{ timezone, weekly }`; null (or a null weekly): always open. */
    teamHours: jsonb('team_hours').$type<StoredTeamHours>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('accounts_email_key').on(t.email),
    uniqueIndex('accounts_slug_key').on(t.slug),
    check('accounts_retention_days_check', sql`${t.retentionDays} between 7 and 3650`),
    check('accounts_assignment_mode_check', sql`${t.assignmentMode} in ('off', 'round_robin', 'least_busy')`),
    check('accounts_assignment_capacity_check', sql`${t.assignmentCapacity} between 1 and 100`),
  ],
);

/**
 * An account's single sign-on with OpenID Connect (issue #45, item 2): its provider, client (the secret sealed with
 * SECRETS_KEY), button, who may join, and whether passwords still sign in members other than the owner.
 */
export const accountSso = pgTable(
  'account_sso',
  {
    accountId: uuid('account_id')
      .primaryKey()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** null: single sign-on is off. */
    issuer: text('issuer'),
    clientId: text('client_id'),
    clientSecret: text('client_secret'),
    buttonName: text('button_name').notNull().default('SSO'),
    /** Lower-cased e-mail domains whose unknown e-mails join with `defaultRole`. */
    allowedDomains: jsonb('allowed_domains').$type<string[]>().notNull().default([]),
    defaultRole: text('default_role').notNull().default('agent'),
    passwordLogin: boolean('password_login').notNull().default(true),
    updatedAt: updatedAt(),
  },
  (t) => [check('account_sso_default_role_check', sql`${t.defaultRole} in ('admin', 'agent')`)],
);

/** The e-mails of removed members: single sign-on lets them join again only by a new invitation (not by a domain). */
export const ssoRemovedMembers = pgTable(
  'sso_removed_members',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    removedAt: timestamp('removed_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.email] })],
);

/**
 * The people who sign in to an account's console (issue #25). The account's first login is its owner (same id as the
 * account); the others are invited (status `invited`, no password) and become `active` when they accept.
 */
export const members = pgTable(
  'members',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Stored lower-cased; one member per e-mail across accounts, so a login names one member. */
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** `owner` (one per account), `admin` or `agent`. */
    role: text('role').notNull(),
    /** `active` or `invited`. */
    status: text('status').notNull(),
    /** scrypt hash; null while invited. */
    passwordHash: text('password_hash'),
    /** Carried by every token and session cookie; raising it ends them all (removal, role or password change, sign-out). */
    sessionVersion: integer('session_version').notNull().default(1),
    /** SHA-256 of the invitation link's token, hex; the token itself is never stored. Kept once used (400 "used"). */
    inviteTokenHash: text('invite_token_hash'),
    inviteExpiresAt: timestamp('invite_expires_at', { withTimezone: true, precision: 3 }),
    /** The invitation link's token sealed with SECRETS_KEY (lib/secret-box.ts), to show the link again; null once accepted. */
    inviteTokenSealed: text('invite_token_sealed'),
    /** The member's language in the web account. */
    language: text('language').notNull().default('en'),
    /** E-mail alerts: `off`, `handoffs` or `mine`; null: the role's default (`handoffs` for owner and admins, `mine` for agents). */
    notifyEmail: text('notify_email'),
    /** Browser notifications in the web account. */
    notifyBrowser: boolean('notify_browser').notNull().default(true),
    /** SHA-256 of a forgotten-password link's token (hex), cleared when used; the token itself is never stored. */
    resetTokenHash: text('reset_token_hash'),
    resetExpiresAt: timestamp('reset_expires_at', { withTimezone: true, precision: 3 }),
    /** The TOTP secret (base32) sealed with SECRETS_KEY while two-factor sign-in is on; null: off (issue #45). */
    twoFactorSecret: text('two_factor_secret'),
    /** A secret set up but not yet confirmed by a code (sealed). */
    twoFactorPendingSecret: text('two_factor_pending_secret'),
    /** The last TOTP time step accepted: a code is accepted once. */
    twoFactorLastStep: integer('two_factor_last_step'),
    /** SHA-256 (hex) of each unused recovery code; a used one is removed. */
    twoFactorRecoveryHashes: jsonb('two_factor_recovery_hashes').$type<string[]>().notNull().default([]),
    twoFactorEnabledAt: timestamp('two_factor_enabled_at', { withTimezone: true, precision: 3 }),
    /** `available` or `away` (issue #44, migration 0040): auto-assignment gives chats to available members. */
    availability: text('availability').notNull().default('available'),
    /** The member becomes `away` when their last web-account tab closes. */
    awayWhenOffline: boolean('away_when_offline').notNull().default(false),
    /** Open assigned chats this member takes (1–100); null: the account's capacity. */
    capacity: integer('capacity'),
    /** When auto-assignment last gave this member a chat (round robin: the least recent first). */
    lastAssignedAt: timestamp('last_assigned_at', { withTimezone: true, precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('members_email_key').on(t.email),
    uniqueIndex('members_invite_token_hash_key').on(t.inviteTokenHash),
    uniqueIndex('members_reset_token_hash_key').on(t.resetTokenHash),
    index('members_account_id_idx').on(t.accountId),
    uniqueIndex('members_one_owner_key').on(t.accountId).where(sql`${t.role} = 'owner'`),
    check('members_role_check', sql`${t.role} in ('owner', 'admin', 'agent')`),
    check('members_status_check', sql`${t.status} in ('active', 'invited')`),
    check('members_notify_email_check', sql`${t.notifyEmail} in ('off', 'handoffs', 'mine')`),
    check('members_availability_check', sql`${t.availability} in ('available', 'away')`),
    check('members_capacity_check', sql`${t.capacity} between 1 and 100`),
  ],
);

/**
 * Each sign-in of a member (a bearer token or a web-account cookie carries its id): listed on Profile and ended one
 * by one (issue #45). Honoured while the member's session version is the one it was made with and it has not expired.
 */
export const memberSessions = pgTable(
  'member_sessions',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    sessionVersion: integer('session_version').notNull(),
    userAgent: text('user_agent').notNull(),
    address: text('address').notNull(),
    createdAt: createdAt(),
    /** Written at most once a minute per session. */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    /** Signed in without a second factor the account requires: only setting it up is allowed (issue #45). */
    twoFactorSetupOnly: boolean('two_factor_setup_only').notNull().default(false),
  },
  (t) => [index('member_sessions_member_id_idx').on(t.memberId)],
);

/**
 * The second step of a sign-in with two-factor sign-in on (issue #45): the password was right; the challenge (stored
 * as its SHA-256) and a code give a session. Lasts 5 minutes, is used once, and ends after 5 wrong codes.
 */
export const loginChallenges = pgTable(
  'login_challenges',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    memberId: uuid('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    /** `token` (POST /auth/login) or `session` (the web account's cookie, POST /auth/session). */
    kind: text('kind').notNull(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [uniqueIndex('login_challenges_token_hash_key').on(t.tokenHash), index('login_challenges_member_id_idx').on(t.memberId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** SHA-256 of the key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    /** First characters of the key, for display. */
    prefix: text('prefix').notNull(),
    scopes: text('scopes').array().notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    deactivatedAt: timestamp('deactivated_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [uniqueIndex('api_keys_key_hash_key').on(t.keyHash), index('api_keys_account_id_idx').on(t.accountId)],
);

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** A 64-bit transaction id (PostgreSQL `xid8`), read as its decimal text. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/** Agent settings as stored (spec, Webhook settings object). */
export interface StoredAgentSettings {
  behavior: string;
  role: string;
  task: string;
  greeting: string;
  isActive: boolean;
  aiLang: string;
}
export type StoredAgentEngine =
  | { kind: 'knowledge-base'; answerThreshold?: number }
  | {
      kind: 'openai-compatible';
      baseUrl: string;
      model: string;
      /** Per request to the model server; default 30. */
      timeoutSeconds?: number;
      /** Voice messages go through `/audio/transcriptions` with this model; unset: the model is told one came. */
      transcriptionModel?: string | null;
    };
export interface StoredWorkingHours {
  timeZone: string;
  intervals: { day: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'; from: string; to: string }[];
}

/** An account's team hours as stored (issue #44): each weekday's [from, to] HH:MM ranges, local to `timezone`; null weekly: always open. */
export interface StoredTeamHours {
  timezone: string;
  weekly: Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', [string, string][]> | null;
}

/** A widget channel's settings as stored (console contract `WidgetSettings`, secret apart). */
export interface StoredWidgetSettings {
  /** Origins (`https://shop.example`) whose pages may embed the widget; none: it shows nowhere. */
  allowedOrigins: string[];
  title: string;
  color: string;
  position: 'right' | 'left';
  launcherText: string;
  /** Shown in the frame before the first message (not stored as a message). */
  greeting: string;
  requireVerifiedIdentity: boolean;
  messagesPerMinute: number;
  newVisitorsPerIpPerMinute: number;
  maxMessageLength: number;
  /** Asked before the first message when enabled (absent in rows stored before it existed: the default). */
  preChatForm: { enabled: boolean; name: 'required' | 'optional'; email: 'required' | 'optional' };
}

export const knowledgeBases = pgTable(
  'knowledge_bases',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** ISO 639-1 code; picks the PostgreSQL text-search configuration of the entries. */
    language: text('language').notNull().default('en'),
    /** Bumped by every write of an entry: a process rebuilds its in-memory copy of the base when it changed. */
    entriesVersion: bigint('entries_version', { mode: 'number' }).notNull().default(0),
    /** An OpenAI-compatible embeddings provider (`POST {baseUrl}/embeddings`); null: the built-in encoder. */
    embeddingsBaseUrl: text('embeddings_base_url'),
    embeddingsModel: text('embeddings_model'),
    /** The provider's API key, sealed (lib/secret-box.ts); never shown. */
    embeddingsApiKey: text('embeddings_api_key'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('knowledge_bases_account_id_idx').on(t.accountId)],
);

export const knowledgeEntries = pgTable(
  'knowledge_entries',
  {
    id: uuid('id').primaryKey(),
    knowledgeBaseId: uuid('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    question: text('question').notNull(),
    /** Other ways customers ask the same question; searched with the question's weight. */
    synonyms: text('synonyms').array().notNull().default(sql`'{}'::text[]`),
    /** The question and its synonyms normalized (knowledge/normalize.ts): an exact match always wins. */
    questionKeys: text('question_keys').array().notNull().default(sql`'{}'::text[]`),
    answer: text('answer').notNull(),
    /** `manual` (typed in the console) or `correction` (from a disliked reply). */
    source: text('source').notNull().default('manual'),
    /** The disliked agent reply a correction came from. */
    messageId: text('message_id'),
    /** No-model path: the action run when the entry matches, instead of sending its answer (migration 0031). */
    actionId: uuid('action_id').references((): AnyPgColumn => actions.id, { onDelete: 'set null' }),
    /** Question and synonyms (weight A) and answer (weight B) in the base's text-search configuration; set by the store. */
    search: tsvector('search').notNull(),
    /** Sentence vectors of the question and each synonym, one after the other; null until computed (a job). */
    questionVectors: real('question_vectors').array(),
    answerVector: real('answer_vector').array(),
    /** What computed the vectors (`use-lite`, or an embeddings provider's model). */
    vectorsModel: text('vectors_model'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('knowledge_entries_base_created_idx').on(t.knowledgeBaseId, t.createdAt.desc(), t.id.desc()),
    index('knowledge_entries_search_idx').using('gin', t.search),
    index('knowledge_entries_question_keys_idx').using('gin', t.questionKeys),
    check('knowledge_entries_source_check', sql`${t.source} in ('manual', 'correction')`),
  ],
);

/** A phrasing customers chose for an entry (a pick after a clarification), until the team keeps or discards it. */
export const knowledgeLearnedQuestions = pgTable(
  'knowledge_learned_questions',
  {
    id: uuid('id').primaryKey(),
    entryId: uuid('entry_id')
      .notNull()
      .references(() => knowledgeEntries.id, { onDelete: 'cascade' }),
    text: text('text').notNull(),
    /** The text normalized (knowledge/normalize.ts): the same phrasing picked again counts once more. */
    textKey: text('text_key').notNull(),
    picks: integer('picks').notNull().default(1),
    /** When the team kept it (it is then one of the entry's synonyms, answered directly only while unambiguous). */
    keptAt: timestamp('kept_at', { precision: 3, withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('knowledge_learned_questions_entry_key').on(t.entryId, t.textKey), index('knowledge_learned_questions_text_key_idx').on(t.textKey)],
);

/** The chats whose customer chose the entry for the phrasing (how many different customers did). */
export const knowledgeLearnedQuestionChats = pgTable(
  'knowledge_learned_question_chats',
  {
    learnedQuestionId: uuid('learned_question_id')
      .notNull()
      .references(() => knowledgeLearnedQuestions.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.learnedQuestionId, t.chatId] }), index('knowledge_learned_question_chats_chat_id_idx').on(t.chatId)],
);

/** A file uploaded to a knowledge base (PDF, DOCX, Markdown, plain text, HTML), parsed into passages by a job. */
export const knowledgeDocuments = pgTable(
  'knowledge_documents',
  {
    id: uuid('id').primaryKey(),
    knowledgeBaseId: uuid('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    /** The file name as uploaded (cleaned): a later upload of the same name replaces this document. */
    name: text('name').notNull(),
    /** What the upload claimed to be (its extension): `pdf`, `docx`, `markdown`, `text` or `html`. */
    kind: text('kind').notNull(),
    /** `processing` until the parse job ends, then `ready` or `failed` (with `error`). */
    status: text('status').notNull().default('processing'),
    error: text('error'),
    /** The uploaded file in the file store while it waits for the parse job; null once parsed. */
    fileKey: text('file_key'),
    size: integer('size').notNull(),
    passageCount: integer('passage_count').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('knowledge_documents_base_name_idx').on(t.knowledgeBaseId, t.name),
    check('knowledge_documents_kind_check', sql`${t.kind} in ('pdf', 'docx', 'markdown', 'text', 'html')`),
    check('knowledge_documents_status_check', sql`${t.status} in ('processing', 'ready', 'failed')`),
  ],
);

/** A bounded piece of a document's text under one heading path: retrieved like an entry, given to the model. */
export const knowledgePassages = pgTable(
  'knowledge_passages',
  {
    id: uuid('id').primaryKey(),
    documentId: uuid('document_id')
      .notNull()
      .references(() => knowledgeDocuments.id, { onDelete: 'cascade' }),
    /** The document's base (loaded with its entries into one index). */
    knowledgeBaseId: uuid('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    /** Order in the document, from 0. */
    position: integer('position').notNull(),
    /** The headings above the passage, outermost first. */
    headingPath: text('heading_path').array().notNull().default(sql`'{}'::text[]`),
    text: text('text').notNull(),
    /** Sentence vectors of the heading path and of the passage (with its headings), null until computed (a job). */
    headingVector: real('heading_vector').array(),
    textVector: real('text_vector').array(),
    vectorsModel: text('vectors_model'),
  },
  (t) => [
    index('knowledge_passages_base_idx').on(t.knowledgeBaseId),
    uniqueIndex('knowledge_passages_document_position_key').on(t.documentId, t.position),
  ],
);

export const channels = pgTable(
  'channels',
  {
    /** API channels: `cc:` + random token; other kinds: a UUIDv7. */
    id: text('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    webhookUrl: text('webhook_url'),
    /** Standard Webhooks signing secret (write-only in the console). */
    webhookSecret: text('webhook_secret'),
    disableAgentResponses: boolean('disable_agent_responses').notNull().default(false),
    settings: jsonb('settings').$type<StoredAgentSettings>().notNull(),
    knowledgeBaseId: uuid('knowledge_base_id').references(() => knowledgeBases.id, { onDelete: 'set null' }),
    agentEngine: jsonb('agent_engine').$type<StoredAgentEngine>().notNull(),
    /** API key of the openai-compatible engine (write-only in the console). */
    agentApiKey: text('agent_api_key'),
    /** Messenger credentials (write-only in the console). */
    credentials: jsonb('credentials').$type<Record<string, string>>(),
    workingHours: jsonb('working_hours').$type<StoredWorkingHours>(),
    autoReply: text('auto_reply'),
    /** What the agent sends when it hands a chat to the team; null: a default sentence in the channel's aiLang. */
    handoffMessage: text('handoff_message'),
    /** The knowledge-base engine hands off instead of its n-th fallback in a row; 0: never. */
    handoffAfterFallbacks: integer('handoff_after_fallbacks').notNull().default(2),
    /** The knowledge-base engine offers at most this many options when unsure (clarifying choices); 0: never asks. */
    clarifyChoices: integer('clarify_choices').notNull().default(3),
    /** The sentence before the options; null: a default sentence in the channel's aiLang. */
    clarifyPrompt: text('clarify_prompt'),
    /** The account's actions the channel's agent may use (migration 0031; an action's delete takes its id out). */
    actionIds: uuid('action_ids').array().notNull().default(sql`'{}'::uuid[]`),
    /** The messenger connector's last error (a refused send, a failed download), shown in the console. */
    connectorError: text('connector_error'),
    connectorErrorAt: timestamp('connector_error_at', { withTimezone: true, precision: 3 }),
    /** Chat widget settings (kind `widget` only): allowed origins, look, identity rule, abuse limits. */
    widget: jsonb('widget').$type<StoredWidgetSettings>(),
    /** HMAC key of `identifierHash` (kind `widget`; write-only in the console; sealed at rest). */
    widgetIdentitySecret: text('widget_identity_secret'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('channels_account_id_idx').on(t.accountId, t.createdAt)],
);

/**
 * Failed console logins per e-mail and client address (throttling survives restarts and is shared by processes);
 * per address, so a stranger's failures never lock the owner out.
 */
export const loginThrottle = pgTable(
  'login_throttle',
  {
    email: text('email').notNull(),
    ip: text('ip').notNull(),
    failures: integer('failures').notNull(),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true, precision: 3 }).notNull(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
  },
  (t) => [primaryKey({ columns: [t.email, t.ip] })],
);

export const chats = pgTable(
  'chats',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    /** Channel kind, copied from the channel: the list filters on it without a join. */
    channelKind: text('channel_kind').notNull(),
    /** Chat ID in the messenger, or the caller's externalChatId for the API channel. */
    externalChatId: text('external_chat_id').notNull(),
    /** Chat key (ban, unban, webhook payloads). */
    uniqueId: text('unique_id').notNull(),
    dialogName: text('dialog_name').notNull(),
    lastText: text('last_text').notNull().default(''),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    unreadCount: integer('unread_count').notNull().default(0),
    customUnread: boolean('custom_unread').notNull().default(false),
    /** Task status: true = done (`isTriggered`). */
    taskDone: boolean('task_done').notNull().default(false),
    paused: boolean('paused').notNull().default(false),
    /** The agent handed the chat to the team and no member has replied or resumed it since (Inbox `Needs a human`). */
    needsHuman: boolean('needs_human').notNull().default(false),
    /** When the auto-reply was last sent: it goes once per off-hours period. */
    autoReplyAt: timestamp('auto_reply_at', { withTimezone: true, precision: 3 }),
    banned: boolean('banned').notNull().default(false),
    isGroup: boolean('is_group').notNull().default(false),
    email: text('email'),
    photoUrl: text('photo_url'),
    /** The member working the chat (Inbox assignment); null: unassigned. */
    assigneeId: uuid('assignee_id').references(() => members.id, { onDelete: 'set null' }),
    /** When the chat last came to need a person (a trigger sets it, migration 0040): the waiting queue's order. */
    needsHumanAt: timestamp('needs_human_at', { withTimezone: true, precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('chats_channel_external_key').on(t.channelId, t.externalChatId),
    uniqueIndex('chats_account_unique_id_key').on(t.accountId, t.uniqueId),
    // The chat list: newest activity first, with or without a filter. Each holds the page's columns, so a page
    // (and the rows an offset skips) is read from the index alone (chats-store.ts).
    index('chats_account_activity_idx').on(t.accountId, t.lastMessageAt.desc(), t.id.desc()),
    index('chats_account_kind_activity_idx').on(t.accountId, t.channelKind, t.lastMessageAt.desc(), t.id.desc()),
    index('chats_account_channel_activity_idx').on(t.accountId, t.channelId, t.lastMessageAt.desc(), t.id.desc()),
    // The Inbox's unread filter (migration 0009). Migration 0031 adds the other filtered columns as INCLUDE to this
    // index and to the done, assignee and needs-human ones (drizzle's index builder cannot say INCLUDE).
    index('chats_account_unread_activity_idx')
      .on(t.accountId, t.lastMessageAt.desc(), t.id.desc())
      .where(sql`(${t.unreadCount} > 0 or ${t.customUnread})`),
    index('chats_account_done_activity_idx')
      .on(t.accountId, t.lastMessageAt.desc(), t.id.desc())
      .where(sql`${t.taskDone}`),
    // The Inbox's assignee filter (`me`, a member); `none` walks the activity index.
    index('chats_account_assignee_activity_idx')
      .on(t.accountId, t.assigneeId, t.lastMessageAt.desc(), t.id.desc())
      .where(sql`${t.assigneeId} is not null`),
    // The Inbox's `Needs a human` view (migration 0021).
    index('chats_account_needs_human_activity_idx')
      .on(t.accountId, t.lastMessageAt.desc(), t.id.desc())
      .where(sql`${t.needsHuman}`),
    // The chats waiting for auto-assignment, oldest first (migration 0040).
    index('chats_account_waiting_idx')
      .on(t.accountId, t.needsHumanAt, t.id)
      .where(sql`${t.needsHuman} and ${t.assigneeId} is null`),
    // The customer card's other chats with the same e-mail (migration 0026).
    index('chats_account_email_activity_idx')
      .on(t.accountId, t.email, t.lastMessageAt.desc(), t.id.desc())
      .where(sql`${t.email} is not null`),
  ],
);

/**
 * Private notes of the team in a chat's console history. A table of their own, apart from `messages`, so nothing that
 * reads messages (the customer's delivery, webhooks, the event feed, the public API, CRM transcripts) can send one.
 */
export const chatNotes = pgTable(
  'chat_notes',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    /** The member who wrote it; null once they are removed (their name stays). */
    authorId: uuid('author_id').references(() => members.id, { onDelete: 'set null' }),
    authorName: text('author_name').notNull(),
    text: text('text').notNull(),
    /** `note`: a member's (or the model's handoff reason); `summary`: the agent's summary of a handoff (migration 0036). */
    kind: text('kind').$type<'note' | 'summary'>().notNull().default('note'),
    createdAt: createdAt(),
  },
  (t) => [index('chat_notes_chat_created_idx').on(t.chatId, t.createdAt, t.id), check('chat_notes_kind_check', sql`${t.kind} in ('note', 'summary')`)],
);

/** Saved replies of an account, inserted in the Inbox's reply box by typing `/shortCode`. */
export const cannedResponses = pgTable(
  'canned_responses',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    shortCode: text('short_code').notNull(),
    text: text('text').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('canned_responses_account_short_code_key').on(t.accountId, t.shortCode)],
);

export const tags = pgTable(
  'tags',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Chats having the tag: kept by triggers on chat_tags (migration chat_list_indexes), read as the list's `count`. */
    chatCount: integer('chat_count').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('tags_account_name_key').on(t.accountId, t.name),
    check('tags_name_not_empty', sql`length(${t.name}) > 0`),
  ],
);

export const chatTags = pgTable(
  'chat_tags',
  {
    tagId: uuid('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    /**
     * The chat's `last_message_at`, copied by triggers (migration chat_list_indexes) on every insert here and every
     * change of the chat, so a tag's chats are read newest first from one index. The default is a placeholder only.
     */
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, precision: 3 })
      .notNull()
      .default(sql`'-infinity'`),
    /**
     * The chat's columns the Inbox filters on, copied with `last_message_at` (migration 0031; `unread` is
     * `unread_count > 0 or custom_unread`): a tag's chats are filtered and counted from chat_tags alone.
     */
    channelId: text('channel_id').notNull().default(''),
    channelKind: text('channel_kind').notNull().default(''),
    assigneeId: uuid('assignee_id'),
    taskDone: boolean('task_done').notNull().default(false),
    unread: boolean('unread').notNull().default(false),
    needsHuman: boolean('needs_human').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tagId, t.chatId] }),
    index('chat_tags_chat_id_idx').on(t.chatId),
    // The chat list filtered by tag: the tag's chats, newest activity first (migration 0031 adds the copied columns
    // as INCLUDE, which drizzle's index builder cannot say).
    index('chat_tags_tag_activity_idx').on(t.tagId, t.lastMessageAt.desc(), t.chatId.desc()),
  ],
);

/**
 * Chats per channel, and how many of them are done: kept by triggers on chats (migration chat_list_indexes), so
 * the chat list's `count` is a sum over an account's few rows instead of a count over its chats.
 */
export const chatCounts = pgTable(
  'chat_counts',
  {
    accountId: uuid('account_id').notNull(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    channelKind: text('channel_kind').notNull(),
    /**
     * Each key is spread over 16 rows, one per `pg_backend_pid() % 16` (migration 0008): transactions of different
     * connections creating chats in one channel do not queue for one row's lock. Readers sum the shards.
     */
    shard: smallint('shard').notNull().default(0),
    chats: integer('chats').notNull().default(0),
    doneChats: integer('done_chats').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.channelId, t.channelKind, t.shard] })],
);

/**
 * The account's chats counted by the Inbox's filters besides tags (migration 0031, kept by triggers on chats):
 * `assignee_id` is the zero uuid for unassigned chats, `unread` is `unread_count > 0 or custom_unread`; 16 shards
 * per key like chat_counts. Readers sum the rows that match.
 */
export const chatInboxCounts = pgTable(
  'chat_inbox_counts',
  {
    accountId: uuid('account_id').notNull(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    channelKind: text('channel_kind').notNull(),
    assigneeId: uuid('assignee_id').notNull(),
    taskDone: boolean('task_done').notNull(),
    unread: boolean('unread').notNull(),
    needsHuman: boolean('needs_human').notNull(),
    shard: smallint('shard').notNull().default(0),
    chats: integer('chats').notNull().default(0),
  },
  (t) => [
    primaryKey({
      name: 'chat_inbox_counts_pk',
      columns: [t.accountId, t.channelId, t.channelKind, t.assigneeId, t.taskDone, t.unread, t.needsHuman, t.shard],
    }),
  ],
);

/** A tag's chats counted by the same columns (migration 0031, kept by triggers on chat_tags). */
export const chatTagCounts = pgTable(
  'chat_tag_counts',
  {
    tagId: uuid('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    channelKind: text('channel_kind').notNull(),
    assigneeId: uuid('assignee_id').notNull(),
    taskDone: boolean('task_done').notNull(),
    unread: boolean('unread').notNull(),
    needsHuman: boolean('needs_human').notNull(),
    shard: smallint('shard').notNull().default(0),
    chats: integer('chats').notNull().default(0),
  },
  (t) => [
    primaryKey({
      name: 'chat_tag_counts_pk',
      columns: [t.tagId, t.channelId, t.channelKind, t.assigneeId, t.taskDone, t.unread, t.needsHuman, t.shard],
    }),
  ],
);

export interface StoredAttachment {
  contentType: string;
  url: string;
  fileSize: number;
  name: string;
  /** image | audio | other: how the agent treats it (audio = a voice message). */
  kind: 'image' | 'audio' | 'other';
}

/** One option of a clarification: its label, what a pick sends, and the entry it answers with (none for a passage). */
export interface StoredChoice {
  label: string;
  reply: string;
  entryId: string | null;
}

/**
 * What an agent reply asking about an action waits for (the customer's next message answers it): a parameter's value
 * (`tries` failed answers so far) or a yes to a `write`. `values`: the customer's parameters given so far.
 */
export interface StoredActionPending {
  actionId: string;
  values: Record<string, string | number>;
  awaiting: { kind: 'parameter'; name: string; tries: number } | { kind: 'confirm' };
  /** The model's tool call that asked for a `write` (openai-compatible engine): its result goes back to the model. */
  toolCall?: { name: string; arguments: string };
}

/** A clarification's options and the customer's question that led to it (a pick keeps it as a learned phrasing). */
export interface StoredChoices {
  question: string;
  options: StoredChoice[];
  /** The last line's text (`0. <something else>`): choosing it hands the chat to the team. */
  other: string;
}

export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    /** `user` (customer) or `assistant` (the agent or the team). */
    role: text('role').notNull(),
    /**
     * Who wrote it: `customer`, `agent` (an agent reply: the only kind that can be rated), `auto` (the off-hours
     * auto-reply), `team` (Inbox), `api` (a team reply recorded through the API).
     */
    origin: text('origin').notNull(),
    senderName: text('sender_name'),
    text: text('text').notNull(),
    attachments: jsonb('attachments').$type<StoredAttachment[]>().notNull().default([]),
    /** The caller's `messageId`: a repeat in the same chat is ignored. */
    externalId: text('external_id'),
    /** `liked` or `disliked` (agent replies only). */
    rating: text('rating'),
    /** A customer message the agent has not yet answered (or decided to leave unanswered). */
    awaitingAgent: boolean('awaiting_agent').notNull().default(false),
    /** An agent reply that was the engine's fallback sentence (no answer found): the overview's "fell back". */
    fallback: boolean('fallback').notNull().default(false),
    /** An agent reply that handed the chat to the team (the handoff message): the overview's "handed off". */
    handoff: boolean('handoff').notNull().default(false),
    /** An agent reply that asked the customer to choose (clarifying choices): what the next message may pick. */
    choices: jsonb('choices').$type<StoredChoices>(),
    /** An agent reply that answered the customer's pick: the overview's "answered after a choice". */
    afterChoice: boolean('after_choice').notNull().default(false),
    /** An agent reply that was the channel's greeting (no answer: conversations' outcomes, migration 0027). */
    greeting: boolean('greeting').notNull().default(false),
    /** The handoff's reason on the agent reply that handed the chat over (`model`, `customer_request`, `fallbacks`). */
    handoffReason: text('handoff_reason'),
    /** The member who wrote a team reply from the Inbox (no foreign key: a removed member's replies keep it). */
    memberId: uuid('member_id'),
    /** A customer's 1–5 that rated the conversation before it (messengers' CSAT): starts no conversation. */
    csat: boolean('csat').notNull().default(false),
    /**
     * An agent reply that asked for an action's parameter or for the customer's yes to a `write`: what the customer's
     * next message answers (agent/engines/action-turns.ts; migration 0031).
     */
    actionPending: jsonb('action_pending').$type<StoredActionPending>(),
    /** An agent reply that gave an action's answer (a successful call to the shop): reports' "resolved with an action". */
    afterAction: boolean('after_action').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index('messages_chat_created_idx').on(t.chatId, t.createdAt, t.id),
    uniqueIndex('messages_chat_external_id_key').on(t.chatId, t.externalId).where(sql`${t.externalId} is not null`),
    check('messages_role_check', sql`${t.role} in ('user', 'assistant')`),
    check('messages_origin_check', sql`${t.origin} in ('customer', 'agent', 'auto', 'team', 'api')`),
    index('messages_awaiting_agent_idx').on(t.chatId, t.createdAt, t.id).where(sql`${t.awaitingAgent}`),
    check('messages_rating_check', sql`${t.rating} in ('liked', 'disliked')`),
  ],
);

/**
 * The overview's daily figures per account (UTC days), kept by triggers on chats, messages (agent replies) and
 * knowledge_entries (corrections), migration 0009; 16 shards per day like chat_counts. Readers sum the shards.
 */
export const overviewDays = pgTable(
  'overview_days',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    shard: smallint('shard').notNull().default(0),
    conversations: integer('conversations').notNull().default(0),
    answered: integer('answered').notNull().default(0),
    fellBack: integer('fell_back').notNull().default(0),
    handedOff: integer('handed_off').notNull().default(0),
    answeredAfterChoice: integer('answered_after_choice').notNull().default(0),
    /** Clarifying menus the agent offered (migration 0031). */
    clarified: integer('clarified').notNull().default(0),
    corrections: integer('corrections').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.shard] })],
);

/** Transactional outbox: every event is written in the transaction of the change it describes. */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id'),
    /** new_messages | task_trigger | dialog_status_changed (webhooks and the feed) | chat_handed_off (the feed only) */
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: createdAt(),
    /** The writing transaction (a column default: `recordEvent` does not set it); the feed's commit order. */
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [
    index('events_channel_created_idx').on(t.channelId, t.createdAt),
    index('events_chat_idx').on(t.chatId),
    index('events_account_xid_idx').on(t.accountId, t.xid, t.id),
  ],
);

/** Durable background jobs: done/undone commands, agent replies. */
export const jobs = pgTable(
  'jobs',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull(),
    runAt: timestamp('run_at', { withTimezone: true, precision: 3 }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
    /** The token of the claim holding the job (job-queue.ts): only that holder ends, retries or renews it. */
    lease: uuid('lease'),
    lastError: text('last_error'),
    /** At most one queued job per key (one agent reply job per chat). */
    key: text('key'),
    /** Enqueued again while it ran: it runs once more instead of being deleted. */
    rerun: boolean('rerun').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index('jobs_run_at_idx').on(t.runAt), uniqueIndex('jobs_key_key').on(t.key).where(sql`${t.key} is not null`)],
);

/**
 * Webhook deliveries: one per event and channel webhook, created with the event (same transaction).
 * `id` is the Standard Webhooks `webhook-id`, stable across the retries of one delivery.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: uuid('id').primaryKey(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id').notNull(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    /** pending | delivered | failed */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }).notNull(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    // The claim: channels with pending deliveries (a skip scan), then each channel's earliest due ones (the only
    // index of pending deliveries, so the planner never walks every channel's due rows for each channel).
    index('deliveries_pending_channel_idx').on(t.channelId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('deliveries_channel_created_idx').on(t.channelId, t.createdAt.desc()),
    check('deliveries_status_check', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);

/** Every attempt of a delivery: when, how long, what the receiver answered. */
export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: uuid('id').primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }).notNull(),
    latencyMs: integer('latency_ms').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
  },
  (t) => [index('delivery_attempts_delivery_idx').on(t.deliveryId, t.number)],
);

/**
 * The demo animal catalog (`/demo/v1`, spec area B): each account's own animals. IDs come from one identity
 * sequence; bigint mode keeps int64 values above 2^53 exact (`category_id` is whatever int64 the caller gives).
 */
export const pets = pgTable(
  'pets',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    categoryId: bigint('category_id', { mode: 'bigint' }).notNull(),
    status: text('status').$type<'available' | 'pending' | 'sold'>(),
    createdAt: createdAt(),
  },
  (t) => [
    // The list: an account's animals by id, from a cursor.
    index('pets_account_id_idx').on(t.accountId, t.id),
    check('pets_status_check', sql`${t.status} in ('available', 'pending', 'sold')`),
    check('pets_name_not_empty', sql`length(${t.name}) > 0`),
  ],
);

/** Accounts whose demo catalog was seeded: written in the seed's transaction, so the seed happens once. */
export const demoSeeds = pgTable('demo_seeds', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  seededAt: timestamp('seeded_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
});

/** Agent replies that failed for good: the chat is left for the team, and the console shows why. */
export const agentFailures = pgTable(
  'agent_failures',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    error: text('error').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('agent_failures_account_created_idx').on(t.accountId, t.createdAt.desc())],
);

/**
 * A reply going out to a messenger chat (agent, auto or team reply): sent by the `messenger.send` job, which
 * keeps how many parts of a long text went out (a retry does not send them twice) and, when the messenger
 * refused for good or the retries ran out, why (the console's list of failed sends).
 */
export const messengerSends = pgTable(
  'messenger_sends',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id')
      .notNull()
      .references(() => messages.id, { onDelete: 'cascade' }),
    /** pending | sent | failed */
    status: text('status').notNull().default('pending'),
    partsSent: integer('parts_sent').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('messenger_sends_failed_idx')
      .on(t.accountId, t.finishedAt.desc())
      .where(sql`${t.status} = 'failed'`),
    index('messenger_sends_message_idx').on(t.messageId),
    check('messenger_sends_status_check', sql`${t.status} in ('pending', 'sent', 'failed')`),
  ],
);

/**
 * Visitors of a widget channel. The visitor's id is the chat's `chatId` (`externalChatId`); a verified
 * `identifier` links the same customer across devices. `ip_key` (a hash, never the address) counts new visitors
 * per address for the abuse limit.
 */
export const widgetVisitors = pgTable(
  'widget_visitors',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    /** Set only from a verified identity. */
    identifier: text('identifier'),
    name: text('name'),
    email: text('email'),
    /** The host page (origin and path) the widget was last opened on: the Inbox's customer card (migration 0026). */
    pageUrl: text('page_url'),
    ipKey: text('ip_key').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('widget_visitors_channel_identifier_key').on(t.channelId, t.identifier).where(sql`${t.identifier} is not null`),
    index('widget_visitors_channel_ip_created_idx').on(t.channelId, t.ipKey, t.createdAt),
  ],
);

/** Refused embed attempts of a widget channel: an origin the channel does not allow tried to show it (0023). */
export const widgetEmbedAttempts = pgTable(
  'widget_embed_attempts',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    origin: text('origin').notNull(),
    attempts: integer('attempts').notNull().default(1),
    firstAt: timestamp('first_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    lastAt: timestamp('last_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.origin] })],
);

/**
 * A visitor's conversations (the frame's "New conversation"): each is a chat whose `externalChatId` is the
 * conversation id. The first one's id is the visitor id, so a visitor's first chat has `chatId` = visitor id.
 */
export const widgetConversations = pgTable(
  'widget_conversations',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    visitorId: uuid('visitor_id')
      .notNull()
      .references(() => widgetVisitors.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('widget_conversations_visitor_created_idx').on(t.visitorId, t.createdAt, t.id)],
);

/**
 * Conversations of a chat (docs/architecture.md, Outcomes and reports; migration 0027): from a customer message that
 * starts one until the task is done or the account's quiet time passes. Kept by triggers on messages and chats in the
 * transaction of each change, ended by quiet time by the sweep (conversations/conversations-sweep.ts); the reports
 * read only this table.
 */
export const conversations = pgTable(
  'conversations',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }).notNull(),
    /** The time of its last message, once ended; null while open. */
    endedAt: timestamp('ended_at', { withTimezone: true, precision: 3 }),
    /** `done` (the task marked done) or `quiet` (the account's quiet time passed). */
    endedBy: text('ended_by'),
    /** `resolved_by_agent`, `resolved_by_team`, `handed_off`, `unanswered`; null while open. */
    outcome: text('outcome'),
    confirmed: boolean('confirmed').notNull().default(false),
    /** null until 7 days after its end, false as soon as a new conversation starts in the chat within them. */
    durable: boolean('durable'),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, precision: 3 }).notNull(),
    lastCustomerMessageAt: timestamp('last_customer_message_at', { withTimezone: true, precision: 3 }).notNull(),
    messages: integer('messages').notNull().default(0),
    agentAnswers: integer('agent_answers').notNull().default(0),
    answeredAfterChoice: integer('answered_after_choice').notNull().default(0),
    /** Agent replies that gave an action's answer (migration 0031). */
    actionAnswers: integer('action_answers').notNull().default(0),
    handedOffAt: timestamp('handed_off_at', { withTimezone: true, precision: 3 }),
    handoffReason: text('handoff_reason'),
    teamReplied: boolean('team_replied').notNull().default(false),
    memberIds: uuid('member_ids').array().notNull().default(sql`'{}'`),
    firstAgentResponseSeconds: doublePrecision('first_agent_response_seconds'),
    firstTeamResponseSeconds: doublePrecision('first_team_response_seconds'),
    assigneeId: uuid('assignee_id'),
    csatRating: smallint('csat_rating'),
    csatComment: text('csat_comment'),
    csatAskedAt: timestamp('csat_asked_at', { withTimezone: true, precision: 3 }),
    csatAt: timestamp('csat_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('conversations_account_started_idx').on(t.accountId, t.startedAt, t.id),
    index('conversations_account_channel_started_idx').on(t.accountId, t.channelId, t.startedAt, t.id),
    uniqueIndex('conversations_chat_open_key').on(t.chatId).where(sql`${t.endedAt} is null`),
    index('conversations_chat_started_idx').on(t.chatId, t.startedAt.desc()),
    // Open ones by account and start: a summary's live part (migration 0029, where its predicate is explained).
    index('conversations_account_open_idx').on(t.accountId, t.startedAt).where(sql`${t.endedAt} is null and ${t.accountId} is not null`),
    index('conversations_durable_pending_idx').on(t.endedAt).where(sql`${t.endedAt} is not null and ${t.durable} is null`),
  ],
);

/**
 * The reports' daily rollup of ended conversations (migration 0029), kept by triggers on conversations: per account,
 * member (the nil uuid: every conversation; else those the member replied in), UTC day of start and channel, the
 * counts of a summary and three histograms of 185 log-spaced buckets (conversations/duration-histogram.ts).
 */
export const conversationDays = pgTable(
  'conversation_days',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id').notNull(),
    day: date('day').notNull(),
    channelId: text('channel_id').notNull(),
    ended: integer('ended').notNull().default(0),
    resolvedByAgent: integer('resolved_by_agent').notNull().default(0),
    resolvedByAgentConfirmed: integer('resolved_by_agent_confirmed').notNull().default(0),
    resolvedByAgentDurable: integer('resolved_by_agent_durable').notNull().default(0),
    resolvedByTeam: integer('resolved_by_team').notNull().default(0),
    handedOff: integer('handed_off').notNull().default(0),
    unanswered: integer('unanswered').notNull().default(0),
    endedHandedOff: integer('ended_handed_off').notNull().default(0),
    answeredAfterChoice: integer('answered_after_choice').notNull().default(0),
    /** Resolved by the agent with at least one action's answer (migration 0031). */
    resolvedWithAction: integer('resolved_with_action').notNull().default(0),
    reasonModel: integer('reason_model').notNull().default(0),
    reasonCustomerRequest: integer('reason_customer_request').notNull().default(0),
    reasonFallbacks: integer('reason_fallbacks').notNull().default(0),
    csatCount: integer('csat_count').notNull().default(0),
    csatSum: integer('csat_sum').notNull().default(0),
    csatAgentCount: integer('csat_agent_count').notNull().default(0),
    csatAgentSum: integer('csat_agent_sum').notNull().default(0),
    csatTeamCount: integer('csat_team_count').notNull().default(0),
    csatTeamSum: integer('csat_team_sum').notNull().default(0),
    agentHist: integer('agent_hist').array().notNull(),
    teamHist: integer('team_hist').array().notNull(),
    resolutionHist: integer('resolution_hist').array().notNull(),
  },
  (t) => [primaryKey({ name: 'conversation_days_pk', columns: [t.accountId, t.memberId, t.day, t.channelId] })],
);

/** parley_conversations_total{outcome}: ended conversations by outcome, 16 shards (migration 0027). */
export const conversationOutcomeTotals = pgTable(
  'conversation_outcome_totals',
  {
    outcome: text('outcome').notNull(),
    shard: smallint('shard').notNull(),
    total: bigint('total', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.outcome, t.shard] })],
);

/** Per connection: ids the CRM gave (HubSpot portal, Pipedrive's custom person field for the chat key). */
export interface StoredCrmSettings {
  /** HubSpot: the portal (hub) id. */
  portalId?: string;
  /** Pipedrive: the key of the person field holding Parley's chat key (`uniqueId`). */
  chatKeyField?: string;
}

/**
 * CRM connections of an account (docs/architecture.md, CRM connections). `token` is write-only in the console and sealed at
 * rest (lib/secret-box.ts); `channel_ids` null = every channel of the account.
 */
export const crmConnections = pgTable(
  'crm_connections',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** hubspot | pipedrive */
    kind: text('kind').notNull(),
    /** What the CRM calls the account (HubSpot portal, Pipedrive company). */
    name: text('name').notNull(),
    /** Pipedrive's company domain (`<companyDomain>.pipedrive.com`). */
    companyDomain: text('company_domain'),
    token: text('token').notNull(),
    settings: jsonb('settings').$type<StoredCrmSettings>().notNull().default({}),
    channelIds: jsonb('channel_ids').$type<string[]>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('crm_connections_account_idx').on(t.accountId, t.createdAt),
    check('crm_connections_kind_check', sql`${t.kind} in ('hubspot', 'pipedrive')`),
  ],
);

/**
 * A chat as a connection's CRM knows it: the contact and deal ids (a later completion updates them instead of
 * creating new ones) and the state of its last sync (`failed` rows are the console's list of failures).
 */
export const crmLinks = pgTable(
  'crm_links',
  {
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => crmConnections.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    contactId: text('contact_id'),
    dealId: text('deal_id'),
    /** pending | synced | failed */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** When the chat's task last became done (the sync asked for). */
    requestedAt: timestamp('requested_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    syncedAt: timestamp('synced_at', { withTimezone: true, precision: 3 }),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.connectionId, t.chatId] }),
    index('crm_links_connection_updated_idx').on(t.connectionId, t.updatedAt.desc()),
    index('crm_links_failed_idx')
      .on(t.accountId, t.updatedAt.desc())
      .where(sql`${t.status} = 'failed'`),
    index('crm_links_chat_idx').on(t.chatId),
    check('crm_links_status_check', sql`${t.status} in ('pending', 'synced', 'failed')`),
  ],
);

/**
 * Members with the web account open (its live stream, GET /console/v1/live): a row per member and process, renewed
 * by the process's heartbeat and deleted when its last stream closes; a row not renewed for a while is a dead process's.
 */
export const memberPresence = pgTable(
  'member_presence',
  {
    memberId: uuid('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    processId: uuid('process_id').notNull(),
    accountId: uuid('account_id').notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.memberId, t.processId] }), index('member_presence_account_seen_idx').on(t.accountId, t.seenAt)],
);

/** The last alert e-mail of a chat to a member: at most one an hour. */
export const alertEmails = pgTable(
  'alert_emails',
  {
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id')
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    sentAt: timestamp('sent_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.chatId, t.memberId] })],
);

/** The file store the processes on this database share (files/file-store-identity.ts): one row. */
export const fileStore = pgTable(
  'file_store',
  {
    singleton: boolean('singleton').primaryKey().notNull().default(true),
    storeId: text('store_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [check('file_store_singleton_check', sql`${t.singleton}`)],
);

/** A replay (issue #37): past customer questions answered again by a channel's agent as configured now, sending nothing. */
export const replays = pgTable(
  'replays',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    /** `history` (the channel's past conversations) or `file` (an uploaded CSV or JSON). */
    source: text('source').notNull(),
    status: text('status').notNull().default('running'),
    /** The channel's `read` actions are called for real (migration 0031); `write` actions never are. */
    callReadActions: boolean('call_read_actions').notNull().default(false),
    total: integer('total').notNull(),
    error: text('error'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('replays_account_created_idx').on(t.accountId, t.createdAt),
    check('replays_source_check', sql`${t.source} in ('history', 'file')`),
    check('replays_status_check', sql`${t.status} in ('running', 'done', 'failed')`),
  ],
);

/** One question of a replay: the team's answer, and once replayed, the agent's reply and its verdict. */
export const replayItems = pgTable(
  'replay_items',
  {
    id: uuid('id').primaryKey(),
    replayId: uuid('replay_id')
      .notNull()
      .references(() => replays.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    question: text('question').notNull(),
    teamAnswer: text('team_answer'),
    conversationId: text('conversation_id'),
    agentReply: text('agent_reply'),
    /** Null until replayed. */
    verdict: text('verdict'),
    mark: text('mark'),
    /** The actions the agent would have called but did not (migration 0031). */
    wouldCall: text('would_call').array().notNull().default(sql`'{}'::text[]`),
    /** Whose past reply `team_answer` is: `team` (a member's, or a file's answer) or `agent` (answered by the agent alone; migration 0035). */
    answeredBy: text('answered_by').notNull().default('team'),
  },
  (t) => [
    uniqueIndex('replay_items_replay_position_key').on(t.replayId, t.position),
    index('replay_items_pending_idx').on(t.replayId, t.position).where(sql`${t.verdict} is null`),
    check('replay_items_verdict_check', sql`${t.verdict} in ('agrees', 'differs', 'clarified', 'handed_off', 'fell_back')`),
    check('replay_items_mark_check', sql`${t.mark} in ('right', 'wrong')`),
    check('replay_items_answered_by_check', sql`${t.answeredBy} in ('team', 'agent')`),
  ],
);

/** A header of an action as stored: a secret's value sealed (lib/secret-box.ts), never shown. */
export interface StoredActionHeader {
  name: string;
  value: string;
  secret: boolean;
}

/** A parameter of an action as stored (console contract `ActionParameter`). */
export interface StoredActionParameter {
  name: string;
  description: string;
  type: 'string' | 'number' | 'enum';
  pattern?: string;
  values?: string[];
  required: boolean;
  prompt?: string;
  source: 'customer' | 'verified';
}

/** An HTTP call to the account's own systems that its agent may make in a chat (docs/architecture.md, Agent actions). */
export const actions = pgTable(
  'actions',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull(),
    /** `read` or `write` (a write runs only after the customer's yes). */
    kind: text('kind').notNull(),
    method: text('method').notNull(),
    /** A template: `{{param}}` in its path and query. */
    url: text('url').notNull(),
    headers: jsonb('headers').$type<StoredActionHeader[]>().notNull().default([]),
    /** A JSON template whose strings may hold `{{param}}`; null: no body. */
    body: jsonb('body'),
    parameters: jsonb('parameters').$type<StoredActionParameter[]>().notNull().default([]),
    answer: text('answer').notNull().default(''),
    errorAnswer: text('error_answer'),
    timeoutMs: integer('timeout_ms').notNull().default(5000),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('actions_account_name_key').on(t.accountId, t.name),
    check('actions_kind_check', sql`${t.kind} in ('read', 'write')`),
    check('actions_method_check', sql`${t.method} in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')`),
  ],
);

/**
 * Each run of an action (a call, or one refused before it, or a `write` the customer declined): the chat's console
 * history shows them to the team, never to the customer; `chat_id` null for a test call or a replay.
 */
export const actionRuns = pgTable(
  'action_runs',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    actionId: uuid('action_id')
      .notNull()
      .references(() => actions.id, { onDelete: 'cascade' }),
    chatId: uuid('chat_id').references(() => chats.id, { onDelete: 'cascade' }),
    /** The values sent (secrets masked). */
    parameters: jsonb('parameters').$type<Record<string, string | number>>().notNull(),
    /** The shop's HTTP status; null when no answer came. */
    status: integer('status'),
    /** Null when nothing was sent. */
    ms: integer('ms'),
    /** ok | http_error | timeout | refused | invalid | declined */
    outcome: text('outcome').notNull(),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('action_runs_action_created_idx').on(t.actionId, t.createdAt.desc(), t.id.desc()),
    index('action_runs_chat_created_idx').on(t.chatId, t.createdAt, t.id).where(sql`${t.chatId} is not null`),
    check('action_runs_outcome_check', sql`${t.outcome} in ('ok', 'http_error', 'timeout', 'refused', 'invalid', 'declined')`),
  ],
);

/** The audit log (issue #45, item 4): one change to an account's configuration or people, or a sign-in. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** `member`, `api_key` or `operator`. */
    actorKind: text('actor_kind').notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name').notNull(),
    address: text('address'),
    /** A stable dotted name (`channel.updated`, `auth.login_failed`; docs/architecture.md lists them). */
    kind: text('kind').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    targetName: text('target_name'),
    /** `{ field: [before, after] }`, secrets as "••••". */
    changes: jsonb('changes').$type<Record<string, [unknown, unknown]>>().notNull().default({}),
  },
  (t) => [index('audit_events_account_at_idx').on(t.accountId, t.at, t.id), index('audit_events_at_idx').on(t.at)],
);
