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
