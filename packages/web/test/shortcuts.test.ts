// The Inbox's keys (DESIGN, Team workbench → keyboard): each key's command, none while typing in a field or with a
// modifier, and where `j`/`k` move in the page's chats. Also where the history counts as read to its end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatAfter, commandFor, isTypingIn, SHORTCUTS, type KeyPress } from '../src/pages/inbox/shortcuts.ts';
import { isNearEnd, NEAR_END_PX } from '../src/pages/inbox/scroll-end.ts';

const BODY = { tagName: 'BODY' };

function press(key: string, fields: Partial<KeyPress> = {}): KeyPress {
  return { key, ctrlKey: false, metaKey: false, altKey: false, target: BODY, ...fields };
}

test('each key of the list runs its command', () => {
  assert.deepEqual(
    ['j', 'k', 'r', 'n', 'e', 'a', '/', '?'].map((key) => commandFor(press(key))),
    ['next', 'previous', 'reply', 'note', 'done', 'assignToMe', 'search', 'help'],
  );
  assert.deepEqual(
    SHORTCUTS.map((shortcut) => shortcut.key),
    ['j', 'k', 'r', 'n', 'e', 'a', '/', '?'],
  );
  // `?` comes with Shift; a shifted letter is another key.
  assert.equal(commandFor(press('?', { target: { tagName: 'BUTTON' } })), 'help');
  assert.equal(commandFor(press('J')), null);
  assert.equal(commandFor(press('x')), null);
  assert.equal(commandFor(press('Enter')), null);
  assert.equal(commandFor(press('Escape')), null);
});

test('never while typing in a field, nor with Ctrl, Cmd or Alt, nor while an input method composes', () => {
  for (const target of [{ tagName: 'TEXTAREA' }, { tagName: 'INPUT', type: 'text' }, { tagName: 'INPUT' }, { tagName: 'INPUT', type: 'search' }, { tagName: 'SELECT' }, { tagName: 'DIV', isContentEditable: true }]) {
    assert.equal(isTypingIn(target), true, JSON.stringify(target));
    assert.equal(commandFor(press('j', { target })), null, JSON.stringify(target));
    assert.equal(commandFor(press('?', { target })), null, JSON.stringify(target));
  }
  // A button, a link, a checkbox: no typing there.
  for (const target of [{ tagName: 'BUTTON' }, { tagName: 'A' }, { tagName: 'INPUT', type: 'checkbox' }, { tagName: 'INPUT', type: 'radio' }, null]) {
    assert.equal(isTypingIn(target), false, JSON.stringify(target));
    assert.equal(commandFor(press('e', { target })), 'done', JSON.stringify(target));
  }
  assert.equal(commandFor(press('r', { ctrlKey: true })), null);
  assert.equal(commandFor(press('r', { metaKey: true })), null);
  assert.equal(commandFor(press('a', { altKey: true })), null);
  assert.equal(commandFor(press('n', { isComposing: true })), null);
});

test('j and k step through the page’s chats, from either end when none is open, and stop at the ends', () => {
  const ids = ['c1', 'c2', 'c3'];
  assert.equal(chatAfter(ids, 'c1', 1), 'c2');
  assert.equal(chatAfter(ids, 'c2', -1), 'c1');
  assert.equal(chatAfter(ids, 'c3', 1), null);
  assert.equal(chatAfter(ids, 'c1', -1), null);
  assert.equal(chatAfter(ids, undefined, 1), 'c1');
  assert.equal(chatAfter(ids, undefined, -1), 'c3');
  // The open chat left the page (filtered out): from the start again.
  assert.equal(chatAfter(ids, 'gone', 1), 'c1');
  assert.equal(chatAfter([], 'c1', 1), null);
});

test('the history is read to its end within NEAR_END_PX of it', () => {
  assert.equal(isNearEnd({ scrollTop: 600, scrollHeight: 1000, clientHeight: 400 }), true);
  assert.equal(isNearEnd({ scrollTop: 600 - NEAR_END_PX, scrollHeight: 1000, clientHeight: 400 }), true);
  assert.equal(isNearEnd({ scrollTop: 600 - NEAR_END_PX - 1, scrollHeight: 1000, clientHeight: 400 }), false);
  assert.equal(isNearEnd({ scrollTop: 0, scrollHeight: 300, clientHeight: 400 }), true);
});
