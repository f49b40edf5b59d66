// A document passage as a clarifying option and as the answer to its pick (clarify.ts passageLabel, passageReply) and
// the text machinery under them (passage-text.ts): labels never cut mid-word or mid-clause, replies cut at a
// sentence's end, no Markdown or HTML left, over many shapes of text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PASSAGE_LABEL_MAX, PASSAGE_REPLY_MAX, passageLabel, passageReply } from './clarify.ts';
import { cutAtSentence, cutAtWord, readableText, sentencesOf, shortText } from './passage-text.ts';

const DOC = 'returns-policy.pdf';
const label = (text: string, headingPath: string[] = [], document = DOC) => passageLabel({ document, headingPath, text });
const reply = (text: string, headingPath: string[] = [], document = DOC) => passageReply({ document, headingPath, text });
/** The label's title: without ` (<document>)`. */
const titleOf = (value: string, document = DOC) => {
  assert.ok(value.endsWith(` (${document})`), value);
  return value.slice(0, -` (${document})`.length);
};

/** A cut that ends at a word's end: a prefix of the source, not followed by a letter or digit of the same word. */
function assertWordCut(cut: string, source: string): void {
  const kept = cut.replace(/…$/u, '');
  assert.ok(source.startsWith(kept), `${JSON.stringify(cut)} is not a prefix of ${JSON.stringify(source)}`);
  const next = source[kept.length] ?? '';
  assert.ok(!/[\p{L}\p{N}]/u.test(next) || !/[\p{L}\p{N}]/u.test(kept.at(-1) ?? ''), `cut mid-word before ${JSON.stringify(next)}: ${cut}`);
}

describe('a passage as a clarifying option', () => {
  test('its heading, then the document; a heading with Markdown marks reads without them', () => {
    assert.equal(label('Underwear, earrings and gift cards are final sale.', ['Returns Policy', 'Final sale']), 'Final sale (returns-policy.pdf)');
    assert.equal(label('We ship worldwide.', ['## **Delivery** ##'], 'faq.txt'), 'Delivery (faq.txt)');
    assert.equal(label('Text.', ['Opening hours:']), 'Opening hours (returns-policy.pdf)');
  });

  test('a heading only: the heading; no heading and no text: the document\'s name', () => {
    assert.equal(label('', ['Shipping', 'Rates']), 'Rates (returns-policy.pdf)');
    assert.equal(label('   ', [], 'care-guide.md'), 'care-guide (care-guide.md)');
  });

  test('no heading: the first sentence, without its closing period (a question keeps its mark)', () => {
    assert.equal(label('Orders ship within 2 business days. We use DHL.'), 'Orders ship within 2 business days (returns-policy.pdf)');
    assert.equal(label('Can I return sale items? No, sale items are final.'), 'Can I return sale items? (returns-policy.pdf)');
    assert.equal(label('Our shop\nis open every day.\nCome by.'), 'Our shop is open every day (returns-policy.pdf)');
  });

  test('abbreviations do not end the first sentence: "e.g.", "i.e.", "No. 5", "Dr.", initials', () => {
    assert.equal(label('We accept most cards, e.g. Visa and Mastercard. Cash too.'), 'We accept most cards, e.g. Visa and Mastercard (returns-policy.pdf)');
    assert.equal(label('Visit us at No. 5 Baker Street. We open at 10.'), 'Visit us at No. 5 Baker Street (returns-policy.pdf)');
    assert.equal(label('Dr. Jones and J. R. Smith answer mail. Write any day.'), 'Dr. Jones and J. R. Smith answer mail (returns-policy.pdf)');
    assert.equal(label('Returns are free, i.e. We pay the label. Always.'), 'Returns are free, i.e. We pay the label (returns-policy.pdf)');
  });

  test('a long first sentence is cut at its last clause within the limit (comma, semicolon, dash), with an ellipsis', () => {
    const damaged = 'If an item arrives damaged, send us a photo within 48 hours and we will ship a replacement at no cost to you.';
    assert.equal(label(damaged), 'If an item arrives damaged… (returns-policy.pdf)');
    const semicolon = 'Gift cards never expire and can be used online or in any of our shops; they cannot be exchanged for cash or refunded.';
    assert.equal(label(semicolon), 'Gift cards never expire and can be used online or in any of our shops… (returns-policy.pdf)');
    const dash = 'Parcels left with a neighbour are delivered — the courier leaves a card saying where to collect them from.';
    assert.equal(label(dash), 'Parcels left with a neighbour are delivered… (returns-policy.pdf)');
    // "1,000" and "10:00" are no clause ends.
    const numbers = 'Orders over 1,000 euros placed before 10:00 on a weekday ship the same day from our warehouse in Leeds, tracked.';
    assert.equal(label(numbers), 'Orders over 1,000 euros placed before 10:00 on a weekday ship the same day from… (returns-policy.pdf)');
  });

  test('a long first sentence without punctuation is cut at a word, with an ellipsis, never mid-word', () => {
    const sentence = 'Refunds are paid to the original payment method within five business days after the returned item reaches our warehouse in Leeds';
    const title = titleOf(label(sentence));
    assert.equal(title, 'Refunds are paid to the original payment method within five business days after…');
    assert.ok(title.length <= PASSAGE_LABEL_MAX);
    assertWordCut(title, sentence);
  });

  test('lists: short items joined with commas after their introduction; a list of sentences gives its first', () => {
    assert.equal(label('We accept:\n- Visa\n- Mastercard\n- PayPal'), 'We accept: Visa, Mastercard, PayPal (returns-policy.pdf)');
    assert.equal(label('* Underwear\n* Earrings\n* Gift cards\n\nNone of them can be returned.'), 'Underwear, Earrings, Gift cards (returns-policy.pdf)');
    assert.equal(label('1. Pack the item.\n2. Print the label.'), 'Pack the item (returns-policy.pdf)');
    assert.equal(label('We take: • cards • cash • vouchers'), 'We take: cards, cash, vouchers (returns-policy.pdf)');
  });

  test('non-English text: Russian at a clause, Japanese between words (no spaces) or at its comma', () => {
    const russian = 'Возврат возможен в течение четырнадцати дней, т.е. двух недель, если товар не был в употреблении и сохранены бирки. Деньги вернём.';
    assert.equal(label(russian, [], 'возврат.pdf'), 'Возврат возможен в течение четырнадцати дней, т.е. двух недель… (возврат.pdf)');
    const japanese = '返品は商品到着後三十日以内であれば未使用に限り送料無料で受け付けておりますのでお気軽にお問い合わせくださいませ当店では全ての商品について同じ条件で返品を承っております。';
    const cut = titleOf(label(japanese));
    assert.ok(cut.endsWith('…') && cut.length <= PASSAGE_LABEL_MAX && cut.length > PASSAGE_LABEL_MAX / 2, cut);
    assert.ok(japanese.startsWith(cut.slice(0, -1)), cut);
    // Between two words of the dictionary's, not inside one: "受け付け" and "お問い合わせ" are whole where they are kept.
    assert.ok(!/受け付$|お問い$|問い合$/u.test(cut.slice(0, -1)), cut);
    assert.equal(label('返品は、商品到着後三十日以内であれば、未使用に限り、送料無料で受け付けておりますのでお気軽にお問い合わせくださいませ当店では全ての商品について同じ条件で返品を承っております。'), '返品は、商品到着後三十日以内であれば、未使用に限り… (returns-policy.pdf)');
    assert.equal(label('Wir liefern z.B. nach Berlin. Danke.', [], 'faq.md'), 'Wir liefern z.B. nach Berlin (faq.md)');
  });

  test('a single word longer than the limit is cut where it must', () => {
    const url = `https://shop.example/${'a'.repeat(120)}`;
    assert.equal(titleOf(label(url)), `${url.slice(0, PASSAGE_LABEL_MAX - 1)}…`);
  });

  test('every cut of many sentences ends at a word, within the limit', () => {
    const words = ['returns', 'shipping', 'e.g.', 'gift', 'cards,', 'we', 'the', 'No.', '5', 'parcel', 'free;', '—', 'within', '30', 'days', 'Leeds'];
    for (let n = 0; n < 200; n += 1) {
      const sentence = Array.from({ length: 10 + (n % 25) }, (_, i) => words[(n * 7 + i * 3) % words.length]).join(' ');
      const title = titleOf(label(`${sentence}?`));
      assert.ok(title.length <= PASSAGE_LABEL_MAX, title);
      assertWordCut(title, `${sentence}?`);
    }
  });
});

describe('a picked passage as the reply', () => {
  test('its heading and text, then " — from <document>"; a text that starts with its heading is not titled twice', () => {
    assert.equal(
      reply('Underwear, earrings and gift cards are final sale and cannot be returned.', ['Returns Policy', 'Final sale']),
      'Final sale\nUnderwear, earrings and gift cards are final sale and cannot be returned. — from returns-policy.pdf',
    );
    assert.equal(reply('Shipping\nWe ship in 2 days.', ['Shipping']), 'Shipping\nWe ship in 2 days. — from returns-policy.pdf');
    assert.equal(reply('', ['Shipping']), 'Shipping — from returns-policy.pdf');
    assert.equal(reply('We ship in 2 days.'), 'We ship in 2 days. — from returns-policy.pdf');
  });

  test('a long text is cut at the end of a sentence, at most 700 characters before " — from"', () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `Rule ${i + 1} of our returns says something long enough to fill a line.`);
    const text = sentences.join(' ');
    const sent = reply(text, ['Returns']);
    assert.ok(sent.endsWith(' — from returns-policy.pdf'));
    const body = sent.slice(0, -' — from returns-policy.pdf'.length);
    assert.ok(body.length <= PASSAGE_REPLY_MAX, `${body.length}`);
    assert.ok(body.length > PASSAGE_REPLY_MAX - 80, `${body.length}: as many whole sentences as fit`);
    assert.ok(body.startsWith('Returns\nRule 1 of'));
    assert.ok(body.endsWith('to fill a line.'), body.slice(-40));
    assert.ok(`Returns\n${text}`.startsWith(body));
  });

  test('an abbreviation is no sentence end to cut at', () => {
    const filler = 'Our team reads every message and answers it within one working day. '.repeat(9);
    const text = `${filler}We accept most cards, e.g. Visa and Mastercard, and cash in the shop at No. 5 Baker Street, where Dr. Jones answers questions about sizes. Thank you.`;
    const body = reply(text).replace(/ — from returns-policy\.pdf$/u, '');
    assert.equal(body, filler.trim());
  });

  test('a first sentence longer than 700 characters is cut at a clause or a word, with an ellipsis', () => {
    const long = `Returned items, ${'checked by our team and the courier '.repeat(25)}are refunded.`;
    const body = reply(long).replace(/ — from returns-policy\.pdf$/u, '');
    assert.ok(body.length <= PASSAGE_REPLY_MAX && body.endsWith('…'), body);
    assertWordCut(body, long);
    const titled = reply(long, ['Refunds']).replace(/ — from returns-policy\.pdf$/u, '');
    assert.ok(titled.startsWith('Refunds\nReturned items, checked') && titled.length <= PASSAGE_REPLY_MAX && titled.endsWith('…'), titled);
  });

  test('lists keep one item a line, with tidy markers', () => {
    assert.equal(
      reply('Final sale items:\n\n*   Underwear\n\n+ Earrings\n•  Gift   cards\n3) Swimwear', ['Final sale']),
      'Final sale\nFinal sale items:\n\n- Underwear\n- Earrings\n- Gift cards\n3. Swimwear — from returns-policy.pdf',
    );
  });

  test('Markdown and HTML left in a text document read as plain text', () => {
    const markdown = [
      '# Care guide',
      '',
      '> Wash **cold**, _inside out_; see [our guide](https://shop.example/care "Care") or [sizes](/sizes).',
      '',
      '---',
      '',
      '```',
      'Do not use `bleach` \\*ever\\*.',
      '```',
      '',
      '| Fabric | Heat |',
      '|:------|-----:|',
      '| Wool | low |',
      '',
      'Our store &amp; café<br>is open&nbsp;daily. <b>Mail</b> <https://shop.example/contact> or <!-- not shown -->call.',
      'Sizes run small: 5 * 3 = 15 and snake_case_names stay.',
    ].join('\n');
    assert.equal(
      readableText(markdown),
      [
        'Care guide',
        '',
        'Wash cold, inside out; see our guide (https://shop.example/care) or sizes.',
        '',
        'Do not use bleach *ever*.',
        '',
        'Fabric | Heat',
        'Wool | low',
        '',
        // A line that goes on in lower case goes on the line before.
        'Our store & café is open daily. Mail https://shop.example/contact or call.',
        'Sizes run small: 5 * 3 = 15 and snake_case_names stay.',
      ].join('\n'),
    );
    const sent = reply(markdown, [], 'care.txt');
    for (const residue of ['**', '](', '```', '<b>', '&amp;', '&nbsp;', '<br>', '<!--', '# ', '> ', '---']) assert.ok(!sent.includes(residue), `${residue} in ${sent}`);
  });

  test('whitespace: runs of spaces to one, blank lines to one, a line wrapped mid-sentence joined back', () => {
    assert.equal(readableText('  Our   shop\tis\nopen   every day.\n\n\n\nCome\u00a0by.  \n\n'), 'Our shop is open every day.\n\nCome by.');
    // A line that starts in capitals is its own (an address, a list without markers).
    assert.equal(readableText('Parley Shop\n12 Main Street\nLeeds'), 'Parley Shop\n12 Main Street\nLeeds');
  });
});

describe('the text machinery', () => {
  test('sentences: a line end ends one; an abbreviation before a digit or a name does not', () => {
    assert.deepEqual(sentencesOf('Do we ship abroad? No. We only ship in the UK. See art. 5 of the terms. Call Dr. Who at No. 5.'), [
      'Do we ship abroad? ',
      'No. ',
      'We only ship in the UK. ',
      'See art. 5 of the terms. ',
      'Call Dr. Who at No. 5.',
    ]);
    assert.deepEqual(sentencesOf('Heading\nText one. Text two.'), ['Heading\n', 'Text one. ', 'Text two.']);
    assert.deepEqual(sentencesOf('配送は3日です。返品は30日以内。'), ['配送は3日です。', '返品は30日以内。']);
    assert.deepEqual(sentencesOf('Доставка, т.е. отправка, занимает 2 дня. Спасибо.'), ['Доставка, т.е. отправка, занимает 2 дня. ', 'Спасибо.']);
  });

  test('cuts: at a word (a URL is one), at a clause that keeps a quarter, at whole sentences', () => {
    assert.equal(cutAtWord('see https://shop.example/returns/policy now', 30), 'see');
    assert.equal(cutAtWord('short', 30), 'short');
    assert.equal(cutAtWord('one two (three', 13), 'one two');
    // "Yes," keeps less than a quarter: the word cut.
    assert.equal(shortText('Yes, we ship to every country in the European Union and to Norway', 40), 'Yes, we ship to every country in the…');
    assert.equal(cutAtSentence('One. Two. Three.', 10), 'One. Two.');
    assert.equal(cutAtSentence('One. Two. Three.', 100), 'One. Two. Three.');
  });
});
