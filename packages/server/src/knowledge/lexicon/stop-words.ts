// The Snowball project's stop-word lists (snowballstem.org, English and Russian), with the contracted forms
// written with a straight apostrophe as the tokenizer produces them.

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself
  it its itself they them their theirs themselves what which who whom this that these those am is are was were be
  been being have has had having do does did doing would should could ought i'm you're he's she's it's we're
  they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't
  aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot
  couldn't mustn't let's that's who's what's here's there's when's where's why's how's a an the and but if or
  because as until while of at by for with about against between into through during before after above below to
  from up down in out on off over under again further then once here there when where why how all any both each
  few more most other some such no nor not only own same so than too very`.split(/\s+/),
);

export const RUSSIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от меня
  еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж вам ведь там
  потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе
  под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы нее сейчас были
  куда зачем всех никогда можно при наконец два об другой хоть после над больше тот через эти нас про всего них
  какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой им более всегда
  конечно всю между`.split(/\s+/),
);
