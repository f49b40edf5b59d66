// The transcript of a chat as a CRM note: both HubSpot's `hs_note_body` and Pipedrive's note `content` are HTML, so
// the chat's messages are escaped (a customer's text is never markup there either) and laid out one per paragraph.
import type { StoredAttachment } from '../db/schema.ts';

export interface TranscriptMessage {
  role: string;
  origin: string;
  senderName: string | null;
  text: string;
  attachments: readonly StoredAttachment[];
  createdAt: Date;
}

export interface TranscriptChat {
  dialogName: string;
  uniqueId: string;
  channelName: string;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** Who wrote a message, in words a CRM user reads. */
function author(message: TranscriptMessage, chat: TranscriptChat): string {
  if (message.role === 'user') return message.senderName ?? chat.dialogName;
  switch (message.origin) {
    case 'agent':
      return 'Agent';
    case 'auto':
      return 'Auto-reply';
    default:
      return message.senderName ? `Team (${message.senderName})` : 'Team';
  }
}

/** `2026-11-24 08:05 UTC` */
function when(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The note: a heading naming the chat, then each message (oldest first) with its author and time. */
export function transcriptHtml(chat: TranscriptChat, messages: readonly TranscriptMessage[], truncated: boolean): string {
  const heading = `<p><strong>Parley chat with ${escapeHtml(chat.dialogName)}</strong> (${escapeHtml(chat.channelName)}, chat key ${escapeHtml(chat.uniqueId)})</p>`;
  const lines = messages.map((message) => {
    const files = message.attachments.map((file) => `[${file.kind === 'other' ? 'file' : file.kind}: ${file.name}]`);
    const body = [message.text, ...files].filter((part) => part !== '').join('\n');
    return `<p><strong>${escapeHtml(author(message, chat))}</strong> ${when(message.createdAt)}<br>${escapeHtml(body).replace(/\n/g, '<br>')}</p>`;
  });
  const note = truncated ? ['<p>(earlier messages left out)</p>'] : [];
  return [heading, ...note, ...lines].join('\n');
}
