// A team reply as a knowledge entry's answer (the Gaps tab's `Create entry`, issue #42): the reply said to one
// customer by one member, without what made it personal — the greeting that opens it ("Hi Dana,", "Hello!") and the
// sign-off that closes it ("Thanks, Sam", "— Sam", "Best regards,\nSam"). What is left is the answer itself, its
// first letter made upper-case when the greeting took the sentence's start.

/** A name as signed or greeted: one or two capitalised words ("Sam", "Dana Smith", "O'Neil"). */
const NAME = String.raw`\p{Lu}[\p{Ll}'’-]*(?:\s+\p{Lu}[\p{Ll}'’-]*)?`;
const LONE_NAME = new RegExp(`^${NAME}[.!]?$`, 'u');
const DASH_NAME = new RegExp(`^[—–-]+\\s*${NAME}[.!]?$`, 'u');
/** A sign-off line: its words, then optionally a name ("Thanks, Sam", "Best regards", "Cheers!"). */
const SIGN_OFF_LINE = new RegExp(`^([\\p{L} ']+?)[,!.]*(?:\\s+(${NAME}))?[.!]?$`, 'u');
/** A sign-off at the end of the answer's last sentence ("… at 9. Thanks, Sam"). */
const SIGN_OFF_TAIL = new RegExp(`(?<=[.!?])\\s+([\\p{L} ']+?)[,!.]*(?:\\s+(${NAME}))?[.!]?$`, 'u');
const DASH_TAIL = new RegExp(`\\s+[—–]\\s*${NAME}[.!]?$`, 'u');
/** A greeting at the start: the word, an optional name, then punctuation or the line's end. */
const GREETING = new RegExp(
  String.raw`^(?:hi|hello|hey|hiya|dear|greetings|good\s+(?:morning|afternoon|evening|day))(?:\s+there)?(?:\s+${NAME})?\s*(?:[,!.:;]+\s*|$|\n\s*)`,
  'iu',
);

const SIGN_OFFS = new Set([
  'thanks',
  'thank you',
  'thanks a lot',
  'thank you so much',
  'many thanks',
  'thanks again',
  'cheers',
  'best',
  'best wishes',
  'best regards',
  'kind regards',
  'warm regards',
  'warmest regards',
  'regards',
  'all the best',
  'sincerely',
  'yours',
  'yours sincerely',
  'have a nice day',
  'have a great day',
]);

function isSignOff(words: string | undefined): boolean {
  return words !== undefined && SIGN_OFFS.has(words.trim().toLowerCase().replace(/\s+/g, ' '));
}

/** The greeting's case-insensitive match must still name a capitalised name: "Hi there, dana" keeps "dana". */
function withoutGreeting(text: string): string {
  const match = GREETING.exec(text);
  if (!match) return text;
  const rest = text.slice(match[0].length);
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

function withoutSignOff(text: string): string {
  const lines = text.split('\n');
  for (;;) {
    while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop();
    const last = (lines.at(-1) ?? '').trim();
    if (lines.length === 0) break;
    if (DASH_NAME.test(last)) {
      lines.pop();
      continue;
    }
    const signOff = SIGN_OFF_LINE.exec(last);
    if (signOff && isSignOff(signOff[1])) {
      lines.pop();
      continue;
    }
    // A name alone under a sign-off ("Best regards,\nSam").
    const before = (lines.at(-2) ?? '').trim();
    const above = SIGN_OFF_LINE.exec(before);
    if (LONE_NAME.test(last) && above && isSignOff(above[1]) && above[2] === undefined) {
      lines.splice(-2, 2);
      continue;
    }
    // A sign-off closing the last sentence's line.
    const tail = SIGN_OFF_TAIL.exec(last);
    if (tail && isSignOff(tail[1])) {
      lines[lines.length - 1] = last.slice(0, tail.index);
      continue;
    }
    const dash = DASH_TAIL.exec(last);
    if (dash) {
      lines[lines.length - 1] = last.slice(0, dash.index);
      continue;
    }
    break;
  }
  return lines.join('\n');
}

/** The reply without its greeting and sign-off, trimmed; empty when it was nothing else. */
export function plainAnswer(reply: string): string {
  return withoutSignOff(withoutGreeting(reply.trim())).trim();
}
