// Fixed sentences of the agent, in the channel's language (`aiLang`; other languages get English).

// The fallback asks again and offers a person; it never promises one (the handoff message does, DESIGN: fallback honesty).
const FALLBACK = new Map<string, string>([
  ['en', "I'm not sure I understood. Could you put it another way? You can also ask for a person."],
  ['ru', 'Я не уверен, что правильно понял. Не могли бы вы сформулировать иначе? Вы также можете попросить позвать человека.'],
  ['de', 'Ich bin nicht sicher, ob ich Sie richtig verstanden habe. Können Sie es anders formulieren? Sie können auch nach einem Menschen fragen.'],
  ['fr', "Je ne suis pas sûr d'avoir compris. Pourriez-vous le formuler autrement ? Vous pouvez aussi demander à parler à une personne."],
  ['es', 'No estoy seguro de haberle entendido. ¿Podría decirlo de otra manera? También puede pedir hablar con una persona.'],
  ['it', 'Non sono sicuro di aver capito. Potrebbe dirlo in un altro modo? Può anche chiedere di parlare con una persona.'],
  ['pt', 'Não tenho certeza se entendi. Poderia dizer de outra forma? Você também pode pedir para falar com uma pessoa.'],
]);

const HANDOFF = new Map<string, string>([
  ['en', 'I am passing your conversation to a member of our team; they will reply here as soon as they can.'],
  ['ru', 'Я передаю ваш разговор сотруднику нашей команды; он ответит здесь, как только сможет.'],
  ['de', 'Ich gebe Ihr Gespräch an jemanden aus unserem Team weiter; Sie erhalten hier so bald wie möglich eine Antwort.'],
  ['fr', "Je transmets votre conversation à un membre de notre équipe ; il vous répondra ici dès que possible."],
  ['es', 'Paso su conversación a una persona de nuestro equipo; le responderá aquí lo antes posible.'],
  ['it', 'Passo la conversazione a un membro del nostro team; le risponderà qui appena possibile.'],
  ['pt', 'Estou passando sua conversa para alguém da nossa equipe; a resposta virá aqui assim que possível.'],
]);

const CLARIFY_PROMPT = new Map<string, string>([
  ['en', 'Did you mean one of these?'],
  ['ru', 'Вы имели в виду одно из этого?'],
  ['de', 'Meinten Sie eines davon?'],
  ['fr', "Vouliez-vous dire l'une de ces questions ?"],
  ['es', '¿Quiso decir alguna de estas?'],
  ['it', 'Intendeva una di queste?'],
  ['pt', 'Você quis dizer uma destas?'],
]);

const SOMETHING_ELSE = new Map<string, string>([
  ['en', 'Something else'],
  ['ru', 'Другое'],
  ['de', 'Etwas anderes'],
  ['fr', 'Autre chose'],
  ['es', 'Otra cosa'],
  ['it', "Un'altra cosa"],
  ['pt', 'Outra coisa'],
]);

// Messenger CSAT (conversations/csat-messenger.ts): the widget's `How did we do?`, as text listing 1–5.
const CSAT_QUESTION = new Map<string, string>([
  ['en', 'How did we do? Reply with a number from 1 to 5 (5 is best): 1, 2, 3, 4 or 5.'],
  ['ru', 'Как мы справились? Ответьте числом от 1 до 5 (5 — лучше всего): 1, 2, 3, 4 или 5.'],
  ['de', 'Wie haben wir das gemacht? Antworten Sie mit einer Zahl von 1 bis 5 (5 ist am besten): 1, 2, 3, 4 oder 5.'],
  ['fr', "Comment nous sommes-nous débrouillés ? Répondez par un chiffre de 1 à 5 (5 est le mieux) : 1, 2, 3, 4 ou 5."],
  ['es', '¿Qué tal lo hicimos? Responda con un número del 1 al 5 (5 es lo mejor): 1, 2, 3, 4 o 5.'],
  ['it', 'Come ci siamo comportati? Risponda con un numero da 1 a 5 (5 è il massimo): 1, 2, 3, 4 o 5.'],
  ['pt', 'Como nos saímos? Responda com um número de 1 a 5 (5 é o melhor): 1, 2, 3, 4 ou 5.'],
]);

const VOICE_NOTE = new Map<string, string>([
  ['en', '[The customer sent a voice message, which cannot be listened to here.]'],
  ['ru', '[Клиент отправил голосовое сообщение, которое здесь нельзя прослушать.]'],
]);

// Agent actions (issue #43), the no-model path and the server's own question before a `write`: asking for a parameter
// that has no `prompt` of its own ({label}: its description, else its name), the line before asking again when an answer
// could not be read, the question before a `write` ({description}: what it does; {parameters}: the values), and the
// reply when the customer did not say yes.
const ACTION_ASK = new Map<string, string>([
  ['en', 'Could you give me the {label}?'],
  ['ru', 'Подскажите, пожалуйста: {label}?'],
  ['de', 'Können Sie mir bitte Folgendes nennen: {label}?'],
  ['fr', "Pouvez-vous m'indiquer : {label} ?"],
  ['es', '¿Podría indicarme: {label}?'],
  ['it', 'Può indicarmi: {label}?'],
  ['pt', 'Pode me informar: {label}?'],
]);

const ACTION_RETRY = new Map<string, string>([
  ['en', "Sorry, I couldn't read that."],
  ['ru', 'Извините, не удалось это разобрать.'],
  ['de', 'Entschuldigung, das konnte ich nicht erkennen.'],
  ['fr', "Désolé, je n'ai pas pu le lire."],
  ['es', 'Lo siento, no he podido entenderlo.'],
  ['it', 'Mi scusi, non sono riuscito a leggerlo.'],
  ['pt', 'Desculpe, não consegui entender.'],
]);

const ACTION_CONFIRM = new Map<string, string>([
  ['en', 'Shall I {description} for {parameters}? Reply yes or no.'],
  ['ru', 'Выполнить «{description}» для {parameters}? Ответьте да или нет.'],
  ['de', 'Soll ich „{description}“ für {parameters} ausführen? Antworten Sie mit ja oder nein.'],
  ['fr', 'Dois-je « {description} » pour {parameters} ? Répondez oui ou non.'],
  ['es', '¿Quiere que haga «{description}» para {parameters}? Responda sí o no.'],
  ['it', 'Devo eseguire «{description}» per {parameters}? Risponda sì o no.'],
  ['pt', 'Devo fazer «{description}» para {parameters}? Responda sim ou não.'],
]);

const ACTION_CONFIRM_BARE = new Map<string, string>([
  ['en', 'Shall I {description}? Reply yes or no.'],
  ['ru', 'Выполнить «{description}»? Ответьте да или нет.'],
  ['de', 'Soll ich „{description}“ ausführen? Antworten Sie mit ja oder nein.'],
  ['fr', 'Dois-je « {description} » ? Répondez oui ou non.'],
  ['es', '¿Quiere que haga «{description}»? Responda sí o no.'],
  ['it', 'Devo eseguire «{description}»? Risponda sì o no.'],
  ['pt', 'Devo fazer «{description}»? Responda sim ou não.'],
]);

const ACTION_DECLINED = new Map<string, string>([
  ['en', 'All right, I have not done it.'],
  ['ru', 'Хорошо, я не стал этого делать.'],
  ['de', 'In Ordnung, ich habe es nicht ausgeführt.'],
  ['fr', "D'accord, je ne l'ai pas fait."],
  ['es', 'De acuerdo, no lo he hecho.'],
  ['it', "D'accordo, non l'ho fatto."],
  ['pt', 'Tudo bem, não fiz isso.'],
]);

/** A yes to the server's question, per language (English ones count in every language). */
const YES = new Map<string, string[]>([
  ['en', ['yes', 'y', 'yeah', 'yep', 'yup', 'sure', 'ok', 'okay', 'confirm', 'confirmed', 'correct', 'please do', 'go ahead', 'do it']],
  ['ru', ['да', 'ага', 'конечно', 'подтверждаю', 'давай', 'давайте', 'ок', 'хорошо', 'верно']],
  ['de', ['ja', 'jawohl', 'klar', 'gerne', 'genau', 'bestätige', 'mach das']],
  ['fr', ['oui', 'ouais', "d'accord", 'bien sûr', 'je confirme', 'confirme', 'vas-y', 'allez-y']],
  ['es', ['sí', 'si', 'claro', 'vale', 'de acuerdo', 'confirmo', 'adelante']],
  ['it', ['sì', 'si', 'certo', 'va bene', 'confermo', 'procedi']],
  ['pt', ['sim', 'claro', 'pode', 'confirmo', 'está bem', 'pode ser']],
]);
/** Words that turn a yes into something else ("yes, but not now", "ok no"). */
const NEGATIONS = new Set(['no', 'not', "don't", 'dont', 'nope', 'нет', 'не', 'nein', 'nicht', 'non', 'pas', 'não', 'nao']);

function pick(texts: Map<string, string>, aiLang: string): string {
  const primary = aiLang.toLowerCase().split('-')[0] ?? 'en';
  return texts.get(primary) ?? texts.get('en') ?? '';
}

/** What the knowledge-base agent says when nothing in the base answers the customer. */
export function fallbackText(aiLang: string): string {
  return pick(FALLBACK, aiLang);
}

/** What the agent says when it hands a chat to the team and the channel has no handoff message of its own. */
export function handoffText(aiLang: string): string {
  return pick(HANDOFF, aiLang);
}

/**
 * Outside team hours a handoff's message is followed by when the team is back (issue #44): the weekday of the next
 * opening (0 = Monday) and its time, HH:MM, both in the team's time zone.
 */
const TEAM_BACK = new Map<string, (weekday: number, time: string) => string>([
  ['en', (d, t) => `We are back ${['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'][d]} at ${t}.`],
  ['ru', (d, t) => `Мы вернёмся ${['в понедельник', 'во вторник', 'в среду', 'в четверг', 'в пятницу', 'в субботу', 'в воскресенье'][d]} в ${t}.`],
  ['de', (d, t) => `Wir sind am ${['Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag', 'Sonntag'][d]} um ${t} wieder da.`],
  ['fr', (d, t) => `Nous serons de retour ${['lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche'][d]} à ${t}.`],
  ['es', (d, t) => `Volvemos el ${['lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado', 'domingo'][d]} a las ${t}.`],
  ['it', (d, t) => `Torniamo ${['lunedì', 'martedì', 'mercoledì', 'giovedì', 'venerdì', 'sabato', 'domenica'][d]} alle ${t}.`],
  ['pt', (d, t) => `Voltamos ${['na segunda-feira', 'na terça-feira', 'na quarta-feira', 'na quinta-feira', 'na sexta-feira', 'no sábado', 'no domingo'][d]} às ${t}.`],
]);

/** `We are back <weekday> at <HH:MM>.` in the chat's aiLang (English for other languages). */
export function teamBackText(aiLang: string, weekday: number, time: string): string {
  const primary = aiLang.toLowerCase().split('-')[0] ?? 'en';
  const text = TEAM_BACK.get(primary) ?? TEAM_BACK.get('en');
  return text ? text(weekday, time) : '';
}

/** The sentence before a clarification's options when the channel has no `clarifyPrompt` of its own. */
export function clarifyPromptText(aiLang: string): string {
  return pick(CLARIFY_PROMPT, aiLang);
}

/** The last option of a clarification (`0. …`): the customer's question is none of the others (a handoff). */
export function somethingElseText(aiLang: string): string {
  return pick(SOMETHING_ELSE, aiLang);
}

/** Put in place of a voice message for a model that is not given a transcription. */
export function voiceMessageNote(aiLang: string): string {
  return pick(VOICE_NOTE, aiLang);
}

/** Messenger CSAT's question when a conversation ends: `How did we do?` with 1–5. */
export function csatQuestionText(aiLang: string): string {
  return pick(CSAT_QUESTION, aiLang);
}

function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);
}

/** Asks the customer for an action's parameter that has no `prompt` of its own. */
export function actionAskText(aiLang: string, label: string): string {
  return fill(pick(ACTION_ASK, aiLang), { label });
}

/** Before asking again, when the customer's answer could not be read as the parameter. */
export function actionRetryText(aiLang: string): string {
  return pick(ACTION_RETRY, aiLang);
}

/** The server's own question before a `write`: "Shall I <description> for <parameters>? Reply yes or no". */
export function actionConfirmText(aiLang: string, description: string, parameters: string | null): string {
  return fill(pick(parameters === null ? ACTION_CONFIRM_BARE : ACTION_CONFIRM, aiLang), { description, parameters: parameters ?? '' });
}

/** The reply when the customer did not answer yes (the `write` is not run). */
export function actionDeclinedText(aiLang: string): string {
  return pick(ACTION_DECLINED, aiLang);
}

/** Whether the customer's message is a yes: it starts with a yes of the language (or English) and holds no negation. */
export function isYes(text: string, aiLang: string): boolean {
  const primary = aiLang.toLowerCase().split('-')[0] ?? 'en';
  const words = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'’\s-]/gu, ' ')
    .replace(/’/g, "'")
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0 || words.length > 8 || words.some((word) => NEGATIONS.has(word))) return false;
  const phrases = [...(YES.get(primary) ?? []), ...(YES.get('en') ?? [])];
  const start = words.join(' ');
  return phrases.some((phrase) => start === phrase || start.startsWith(`${phrase} `));
}
