// Requests for a person, per language: what must hand the chat over and what must not (a person mentioned
// otherwise: "a human-sized pan", "the operator of the crane", "I am a real person").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asksForPerson, requestLanguages } from './person-request.ts';

const CASES: Record<string, { yes: string[]; no: string[] }> = {
  en: {
    yes: [
      'I want to talk to a human',
      'Can I speak to a real person please?',
      'Connect me with one of your agents.',
      'Please transfer me to an operator',
      "I'd like a human agent",
      'HUMAN PLEASE!!!',
      'Is there a human I can talk to?',
      'Let me speak with your manager',
      'I need a live agent now',
    ],
    no: [
      'Do you sell a human-sized pan?',
      'Who is the operator of the crane?',
      'I am a real person, not a robot.',
      'What does an agent fee cost?',
      'Is the pan safe for humans?',
      'I need an operator for the crane',
      'Where is my order?',
    ],
  },
  ru: {
    yes: [
      'Хочу поговорить с живым человеком',
      'Соедините меня с оператором, пожалуйста',
      'Позовите менеджера!',
      'Можно связаться с сотрудником?',
      'Переключите на специалиста',
      'нужен живой человек',
      'Дайте мне оператора',
    ],
    no: [
      'Я живой человек, а не бот',
      'Оператор крана сегодня не работает',
      'Кастрюля размером с человека есть?',
      'Сколько стоит доставка?',
      'Нужен оператор крана на завтра',
    ],
  },
  de: {
    yes: [
      'Ich möchte mit einem Menschen sprechen',
      'Kann ich bitte mit einem echten Mitarbeiter reden?',
      'Verbinden Sie mich mit einem Berater',
      'Ich brauche einen Menschen',
      'Mensch bitte',
      'Ich will mit dem Kundenservice telefonieren',
    ],
    no: [
      'Haben Sie eine menschengroße Pfanne?',
      'Der Bediener des Krans ist krank',
      'Ich bin ein echter Mensch',
      'Wie lange dauert der Versand?',
      'Ich brauche einen Mitarbeiter für den Kran',
    ],
  },
  fr: {
    yes: [
      'Je veux parler à un humain',
      "Est-ce que je peux parler à un conseiller ?",
      'Mettez-moi en relation avec un opérateur svp',
      'Je voudrais une vraie personne',
      'Humain s’il vous plaît',
      'Passez-moi le service client',
    ],
    no: [
      'Avez-vous une poêle de taille humaine ?',
      "L'opérateur de la grue est absent",
      'Je suis une vraie personne',
      'Je ne veux parler de personne',
      'Quels sont vos délais de livraison ?',
    ],
  },
  es: {
    yes: [
      'Quiero hablar con un humano',
      '¿Puedo hablar con una persona real?',
      'Pásame con un agente, por favor',
      'Necesito un asesor',
      'Comuníqueme con atención al cliente',
      'operador por favor',
    ],
    no: [
      '¿Tienen una sartén de tamaño humano?',
      'El operador de la grúa no vino',
      'Soy una persona real',
      'Necesito un operador de grúa',
      '¿Cuánto cuesta el envío?',
    ],
  },
  it: {
    yes: [
      'Voglio parlare con un operatore',
      'Posso parlare con una persona vera?',
      'Passatemi un consulente',
      'Vorrei un essere umano',
      'operatore per favore',
      "Mettetemi in contatto con l'assistenza",
    ],
    no: [
      "Avete una padella a misura d'uomo?",
      "L'operatore della gru è in ferie",
      'Sono una persona reale',
      'Vorrei un operatore della gru',
      'Quanto costa la spedizione?',
    ],
  },
  pt: {
    yes: [
      'Quero falar com um atendente',
      'Posso falar com uma pessoa de verdade?',
      'Me transfere para um humano',
      'Preciso de um atendente humano',
      'atendente por favor',
      'Gostaria de falar com o suporte',
    ],
    no: [
      'Vocês têm uma panela de tamanho humano?',
      'O operador do guindaste faltou',
      'Eu sou uma pessoa real',
      'Preciso de um operador de guindaste',
      'Quanto custa o frete?',
    ],
  },
};

describe('requests for a person', () => {
  for (const [lang, { yes, no }] of Object.entries(CASES)) {
    test(`${lang}: requests are recognised`, () => {
      for (const text of yes) assert.equal(asksForPerson(text, lang), true, `${lang}: ${text}`);
    });
    test(`${lang}: a person mentioned otherwise is not a request`, () => {
      for (const text of no) assert.equal(asksForPerson(text, lang), false, `${lang}: ${text}`);
    });
  }

  test("the channel's language and English are checked, no other", () => {
    assert.deepEqual(requestLanguages('de-AT'), ['de', 'en']);
    assert.deepEqual(requestLanguages('nl'), ['en']);
    assert.equal(asksForPerson('I want to talk to a human', 'ru'), true);
    assert.equal(asksForPerson('Ich möchte mit einem Menschen sprechen', 'fr'), false);
    assert.equal(asksForPerson('   ', 'en'), false);
  });
});
