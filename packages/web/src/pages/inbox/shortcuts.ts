// The Inbox's keyboard (DESIGN, Team workbench → keyboard): which key runs which command. Pure: the page listens
// and runs the command; this says what a key press means, and never while the member types in a field.

export type InboxCommand = 'next' | 'previous' | 'reply' | 'note' | 'done' | 'assignToMe' | 'search' | 'help';

/** The keys, in the order the `?` list shows them. */
export const SHORTCUTS: readonly { key: string; command: InboxCommand; description: string }[] = [
  { key: 'j', command: 'next', description: 'Next chat' },
  { key: 'k', command: 'previous', description: 'Previous chat' },
  { key: 'r', command: 'reply', description: 'Reply' },
  { key: 'n', command: 'note', description: 'Private note' },
  { key: 'e', command: 'done', description: 'Mark done' },
  { key: 'a', command: 'assignToMe', description: 'Assign to me' },
  { key: '/', command: 'search', description: 'Search' },
  { key: '?', command: 'help', description: 'Keyboard shortcuts' },
];

/** What of a key press decides its command (a KeyboardEvent has all of it). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** An input method is composing (the key belongs to the text being composed). */
  isComposing?: boolean;
  /** The focused element the press goes to. */
  target: { tagName?: string; isContentEditable?: boolean; type?: string } | null;
}

// Inputs whose keys are no typing: a letter there is free for a shortcut.
const NOT_TYPED = new Set(['button', 'checkbox', 'radio', 'submit', 'reset', 'file', 'image', 'color', 'range']);

/** Whether a key pressed in `target` belongs to the field (text, a select's type-ahead, an editable element). */
export function isTypingIn(target: KeyPress['target']): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = (target.tagName ?? '').toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  return tag === 'input' && !NOT_TYPED.has((target.type ?? 'text').toLowerCase());
}

/**
 * The command a key press runs, or null: none while typing in a field, none with Ctrl, Cmd or Alt (the browser's
 * and the system's own), none for a key outside the list. Shift is allowed (`?` is Shift+/ on most layouts); a
 * shifted letter is another key (`J`) and runs nothing.
 */
export function commandFor(press: KeyPress): InboxCommand | null {
  if (press.ctrlKey || press.metaKey || press.altKey || press.isComposing) return null;
  if (isTypingIn(press.target)) return null;
  return SHORTCUTS.find((shortcut) => shortcut.key === press.key)?.command ?? null;
}

/** The chat `step` places after (1) or before (-1) `current` among `ids`: the first or last when none is open; null at an end. */
export function chatAfter(ids: readonly string[], current: string | undefined, step: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const at = current === undefined ? -1 : ids.indexOf(current);
  if (at === -1) return step === 1 ? (ids[0] ?? null) : (ids[ids.length - 1] ?? null);
  return ids[at + step] ?? null;
}
