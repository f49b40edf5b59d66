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
