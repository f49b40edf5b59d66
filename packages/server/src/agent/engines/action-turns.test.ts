// The no-model path's reading of a customer's message (action-turns.ts) and the texts of actions (agent-texts.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionDefinition } from '../../actions/action-definition.ts';
import type { StoredActionParameter } from '../../db/schema.ts';
import { actionAskText, actionConfirmText, actionDeclinedText, actionRetryText, isYes } from '../agent-texts.ts';
import { confirmQuestion, tokensOf, valueIn, valuesIn, withoutValues } from './action-turns.ts';

const orderNumber: StoredActionParameter = { name: 'order_number', description: 'the order number', type: 'string', pattern: '\\d{5}', required: true, source: 'customer' };
const customer: StoredActionParameter = { name: 'customer', description: '', type: 'string', required: true, source: 'verified' };
const address: StoredActionParameter = { name: 'address', description: 'the new address', type: 'string', required: true, source: 'customer' };

const action = (parameters: StoredActionParameter[], description = 'Cancel the order. Use it when asked.'): ActionDefinition => ({
  id: 'a',
  accountId: 'acc',
  name: 'cancel_order',
  description,
  kind: 'write',
  method: 'POST',
  url: 'https://shop.example/{{order_number}}',
  headers: [],
  body: null,
  parameters,
  answer: '',
  errorAnswer: null,
  timeoutMs: 5000,
  enabled: true,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

test('tokens: text between spaces, surrounding ,.;:!?()"\' trimmed', () => {
  assert.deepEqual(tokensOf(`Where's my order (10482)? "cust-bob", ok!`), ["Where's", 'my', 'order', '10482', 'cust-bob', 'ok']);
});

test('a value is the first token that is a whole valid value; a string with no pattern only as the answer to its question', () => {
  assert.equal(valueIn(orderNumber, 'Where is my order 10482, or 20001?', false), '10482');
  for (const text of ['order #10482', 'order 104822', 'order 1048', 'order 10,482']) assert.equal(valueIn(orderNumber, text, false), undefined, text);
  assert.equal(valueIn(address, 'please change my address', false), undefined);
  assert.equal(valueIn(address, ' 12 Baker Street, London ', true), '12 Baker Street, London');
  // A verified parameter is never read in a message.
  assert.deepEqual(valuesIn(action([customer, orderNumber]), 'I am cust-bob, cancel 10482'), { order_number: '10482' });
});

test('the knowledge base is asked the message without the values', () => {
  assert.equal(withoutValues("Where's my order 10482?", [action([orderNumber])]), "Where's my order?");
  assert.equal(withoutValues('Where is order 10482 (placed last week)?', [action([orderNumber])]), 'Where is order (placed last week)?');
  assert.equal(withoutValues('Where is my order 10482?', []), 'Where is my order 10482?');
});

test("the server's question before a write, and a yes in seven languages", () => {
  assert.equal(confirmQuestion(action([customer, orderNumber]), { order_number: '10482', customer: 'cust-ada' }, 'en'), 'Shall I cancel the order for order number 10482? Reply yes or no.');
  assert.equal(confirmQuestion(action([], 'Reset the password'), {}, 'en'), 'Shall I reset the password? Reply yes or no.');
  assert.equal(actionConfirmText('ru', 'Отменить заказ', 'order number 10482'), 'Выполнить «Отменить заказ» для order number 10482? Ответьте да или нет.');
  for (const [lang, yes] of [['en', 'Yes, please!'], ['ru', 'Да, конечно'], ['de', 'Ja'], ['fr', "Oui, d'accord"], ['es', 'Sí'], ['it', 'Sì, procedi'], ['pt', 'Sim'], ['de', 'ok']] as const) {
    assert.equal(isYes(yes, lang), true, `${lang}: ${yes}`);
  }
  for (const [lang, other] of [['en', 'no'], ['en', 'yes but not now'], ['en', 'what is the weather like?'], ['ru', 'нет'], ['de', 'nein'], ['fr', 'non'], ['en', '']] as const) {
    assert.equal(isYes(other, lang), false, `${lang}: ${other}`);
  }
  for (const lang of ['en', 'ru', 'de', 'fr', 'es', 'it', 'pt']) {
    for (const text of [actionAskText(lang, 'x'), actionRetryText(lang), actionDeclinedText(lang), actionConfirmText(lang, 'x', 'y')]) {
      assert.ok(text.length > 0 && !text.includes('{'), `${lang}: ${text}`);
    }
  }
  assert.notEqual(actionDeclinedText('ru'), actionDeclinedText('en'));
});
