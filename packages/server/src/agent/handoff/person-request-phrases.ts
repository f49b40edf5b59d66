// What a customer writes to ask for a person, per language (docs/architecture.md, Handoff to the team). Data only: the matcher
// (person-request.ts) normalises the phrases and the message the same way (case, punctuation, accents).
//
// A rule is a list of slots; a message matches when it holds one phrase of each slot in order, with at most
// MAX_GAP of the language's filler words between two slots (articles, "real", "your"…) and nothing else. So "talk
// to a real person" matches [talk to] [person], while "a human-sized pan", "the operator of the crane" or "I am a
// real person" have no request verb before the target and do not. `unlessFollowedBy` cancels a match whose last
// phrase is followed by one of these words ("I need an operator for the crane").

export interface PersonRequestRule {
  slots: readonly (readonly string[])[];
  unlessFollowedBy?: readonly string[];
}

export interface PersonRequestLanguage {
  /** Words allowed between two slots of a rule. */
  fillers: readonly string[];
  rules: readonly PersonRequestRule[];
}

/** Filler words allowed between two slots. */
export const MAX_GAP = 3;

const EN_TARGETS = [
  'human', 'humans', 'human being', 'person', 'someone', 'somebody', 'agent', 'agents', 'operator',
  'representative', 'rep', 'staff', 'staff member', 'member of staff', 'team member', 'member of your team', 'manager',
  'supervisor', 'employee', 'customer service', 'customer support', 'support team', 'support agent',
];

const RU_TARGETS = [
  'человек', 'человека', 'человеком', 'человеку', 'людьми', 'оператор', 'оператора', 'оператором', 'оператору',
  'менеджер', 'менеджера', 'менеджером', 'менеджеру', 'сотрудник', 'сотрудника', 'сотрудником', 'сотруднику',
  'специалист', 'специалиста', 'специалистом', 'консультант', 'консультанта', 'консультантом', 'кем нибудь',
  'кем то', 'поддержкой', 'службой поддержки', 'администратор', 'администратора', 'администратором',
];

const DE_TARGETS = [
  'mensch', 'menschen', 'person', 'mitarbeiter', 'mitarbeiterin', 'mitarbeitenden', 'berater', 'beraterin',
  'kundenberater', 'kundenberaterin', 'agenten', 'agentin', 'operator', 'jemandem', 'jemanden', 'support',
  'kundendienst', 'kundenservice', 'manager', 'ansprechpartner', 'ansprechpartnerin', 'verantwortlichen',
];

const FR_TARGETS = [
  'humain', 'un humain', 'etre humain', 'une personne', 'une vraie personne', 'une personne reelle', 'quelqu un',
  'conseiller', 'conseillere', 'agent', 'operateur', 'operatrice', 'responsable', 'employe', 'service client',
  'interlocuteur', 'support',
];

const ES_TARGETS = [
  'humano', 'un humano', 'ser humano', 'persona', 'una persona', 'alguien', 'agente', 'asesor', 'asesora', 'operador',
  'operadora', 'representante', 'encargado', 'gerente', 'empleado', 'supervisor', 'servicio al cliente',
  'atencion al cliente', 'soporte',
];

const IT_TARGETS = [
  'umano', 'essere umano', 'persona', 'qualcuno', 'operatore', 'operatrice', 'agente', 'consulente', 'addetto',
  'responsabile', 'assistenza', 'servizio clienti', 'impiegato', 'dipendente',
];

const PT_TARGETS = [
  'humano', 'ser humano', 'pessoa', 'alguem', 'atendente', 'agente', 'operador', 'operadora', 'representante',
  'consultor', 'consultora', 'gerente', 'funcionario', 'suporte', 'atendimento',
];

export const PERSON_REQUEST_PHRASES: Readonly<Record<string, PersonRequestLanguage>> = {
  en: {
    fillers: ['a', 'an', 'the', 'real', 'actual', 'live', 'your', 'one', 'of', 'some', 'human', 'please', 'right', 'now'],
    rules: [
      {
        slots: [
          [
            'talk to', 'talk with', 'speak to', 'speak with', 'chat with', 'chat to', 'connect me to', 'connect me with',
            'transfer me to', 'put me through to', 'put me in touch with', 'pass me to', 'hand me over to', 'escalate to',
            'escalate this to', 'get me through to',
          ],
          EN_TARGETS,
        ],
      },
      {
        slots: [
          ['i want', 'i need', 'i would like', 'i d like', 'i wanna', 'can i get', 'can i have', 'could i get', 'could i have', 'give me', 'get me', 'i demand', 'i request', 'is there'],
          ['human', 'human being', 'real person', 'live person', 'real human', 'live agent', 'human agent', 'operator', 'representative', 'real agent'],
        ],
        unlessFollowedBy: ['of', 'for', 'sized', 'size', 'shaped'],
      },
      { slots: [['human please', 'operator please', 'agent please', 'representative please', 'person please', 'human agent please']] },
    ],
  },
  ru: {
    fillers: [
      'с', 'со', 'на', 'к', 'живым', 'живой', 'живого', 'настоящим', 'настоящий', 'настоящего', 'реальным', 'реальный',
      'реального', 'вашим', 'вашему', 'вашего', 'ваш', 'вашей', 'пожалуйста', 'мне', 'меня', 'бы', 'одним', 'из', 'нибудь',
    ],
    rules: [
      {
        slots: [
          [
            'поговорить', 'пообщаться', 'общаться', 'связаться', 'соедините', 'соедини', 'свяжите', 'переключите',
            'переключи', 'переведите', 'позовите', 'позови', 'пригласите', 'дайте',
          ],
          RU_TARGETS,
        ],
      },
      {
        slots: [['хочу', 'нужен', 'нужна', 'требуется', 'можно'], ['живой человек', 'живого человека', 'оператор', 'оператора', 'менеджер', 'менеджера', 'сотрудник', 'сотрудника']],
        unlessFollowedBy: ['крана', 'для', 'станка', 'связи'],
      },
    ],
  },
  de: {
    fillers: [
      'einem', 'einer', 'einen', 'ein', 'eine', 'dem', 'der', 'den', 'echten', 'echtem', 'echter', 'realen', 'wirklichen',
      'lebenden', 'menschlichen', 'ihrem', 'ihrer', 'ihren', 'bitte', 'gerne', 'gern', 'jetzt', 'mal', 'kurz', 'doch',
    ],
    rules: [
      { slots: [['mit'], DE_TARGETS, ['sprechen', 'reden', 'chatten', 'verbinden', 'verbunden werden', 'telefonieren', 'schreiben']] },
      {
        slots: [
          ['verbinden sie mich mit', 'verbinde mich mit', 'stellen sie mich durch zu', 'leiten sie mich weiter an', 'ich mochte', 'ich will', 'ich brauche', 'ich hatte gern', 'ich hatte gerne'],
          ['mensch', 'menschen', 'mitarbeiter', 'mitarbeiterin', 'berater', 'beraterin', 'kundenberater', 'ansprechpartner', 'jemandem', 'support', 'kundendienst'],
        ],
        unlessFollowedBy: ['des', 'fur', 'der'],
      },
      { slots: [['mensch bitte', 'mitarbeiter bitte', 'berater bitte']] },
    ],
  },
  fr: {
    fillers: ['un', 'une', 'le', 'la', 'l', 'les', 'vrai', 'vraie', 'veritable', 'votre', 'vos', 'directement', 'enfin'],
    rules: [
      {
        slots: [
          [
            'parler a', 'parler au', 'parler avec', 'discuter avec', 'echanger avec', 'mettre en relation avec',
            'me mettre en relation avec', 'mettez moi en relation avec', 'passez moi', 'transferez moi a',
            'transferez moi vers', 'joindre', 'avoir affaire a', 'puis je avoir',
          ],
          FR_TARGETS,
        ],
      },
      {
        slots: [['je veux', 'je voudrais', 'j aimerais', 'je souhaite', 'je demande', 'je prefere'], ['un humain', 'un conseiller', 'une conseillere', 'un agent', 'un operateur', 'une personne', 'une vraie personne', 'un vrai humain']],
        unlessFollowedBy: ['de', 'du', 'des', 'pour'],
      },
      { slots: [['humain svp', 'humain s il vous plait', 'conseiller svp', 'conseiller s il vous plait', 'operateur svp']] },
    ],
  },
  es: {
    fillers: ['un', 'una', 'el', 'la', 'real', 'su', 'sus', 'vuestro', 'algun', 'alguna', 'directamente'],
    rules: [
      {
        slots: [
          [
            'hablar con', 'hablar a', 'comunicarme con', 'contactar con', 'conversar con', 'chatear con', 'pasame con',
            'paseme con', 'ponerme con', 'ponme con', 'pongame con', 'transferirme a', 'transfiereme a', 'transfierame a',
            'comuniqueme con', 'comunicame con', 'hablar al', 'comunicarme al',
          ],
          ES_TARGETS,
        ],
      },
      {
        slots: [['quiero', 'necesito', 'me gustaria', 'quisiera', 'deseo', 'exijo', 'prefiero'], ['un humano', 'una persona real', 'una persona de verdad', 'un agente', 'un asesor', 'un operador', 'un representante', 'una persona']],
        unlessFollowedBy: ['de', 'para'],
      },
      { slots: [['humano por favor', 'operador por favor', 'agente por favor', 'asesor por favor']] },
    ],
  },
  it: {
    fillers: ['un', 'una', 'uno', 'il', 'la', 'l', 'lo', 'vero', 'vera', 'reale', 'vostro', 'vostra', 'vostri', 'qualche', 'subito', 'direttamente'],
    rules: [
      {
        slots: [
          [
            'parlare con', 'parlare a', 'parlare al', 'parlare all', 'parlare col', 'chattare con', 'comunicare con',
            'mettermi in contatto con', 'mettetemi in contatto con', 'passatemi', 'passami', 'trasferitemi a',
            'trasferiscimi a', 'collegatemi con', 'contattare',
          ],
          IT_TARGETS,
        ],
      },
      {
        slots: [['voglio', 'vorrei', 'ho bisogno di', 'esigo', 'preferisco'], ['un operatore', 'un umano', 'un essere umano', 'una persona reale', 'una persona vera', 'un agente', 'un consulente', 'operatore']],
        unlessFollowedBy: ['di', 'del', 'della', 'dello', 'per'],
      },
      { slots: [['operatore per favore', 'umano per favore', 'operatore grazie']] },
    ],
  },
  pt: {
    fillers: ['um', 'uma', 'o', 'a', 'ao', 'seu', 'sua', 'vosso', 'algum', 'alguma', 'diretamente'],
    rules: [
      {
        slots: [
          [
            'falar com', 'conversar com', 'falar ao', 'me passa para', 'passe me para', 'passa me para', 'me transfere para',
            'transfira me para', 'me transfira para', 'transferir para', 'contatar', 'chamar', 'chame', 'chama',
          ],
          PT_TARGETS,
        ],
      },
      {
        slots: [['quero', 'preciso de', 'gostaria de', 'eu queria', 'exijo', 'prefiro'], ['um humano', 'um atendente', 'uma pessoa real', 'uma pessoa de verdade', 'um operador', 'um agente', 'atendente humano']],
        unlessFollowedBy: ['de', 'do', 'da', 'para'],
      },
      { slots: [['atendente por favor', 'humano por favor', 'operador por favor']] },
    ],
  },
};
