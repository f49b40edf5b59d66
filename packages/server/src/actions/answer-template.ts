// An action's `answer`: a Mustache template over the shop's JSON response (`{{path.to.field}}`, `{{#list}}…{{/list}}`),
// rendered as chat text: never HTML-escaped, no partials, cut to what a message may hold.
import { createRequire } from 'node:module';
import type MustacheModule from 'mustache';
import { MESSAGE_TEXT_MAX } from '@parley/contracts';

/** Mustache, loaded on the first template checked or rendered (not at start). */
let mustache: typeof MustacheModule | undefined;
function loadMustache(): typeof MustacheModule {
  if (!mustache) {
    mustache = createRequire(import.meta.url)('mustache') as typeof MustacheModule;
    // Every edit of a template would stay cached forever; parsing a short template again is cheaper than that.
    mustache.templateCache = undefined;
  }
  return mustache;
}

const AS_TEXT = { escape: (value: unknown) => String(value) };

/** Why the template cannot be parsed (an unclosed section, …), or undefined when it can. */
export function checkTemplate(template: string): string | undefined {
  try {
    loadMustache().parse(template);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The template rendered with the response (an object, an array or a value), trimmed and cut to a message's length. */
export function renderAnswer(template: string, response: unknown): string {
  const view = typeof response === 'object' && response !== null ? response : { value: response };
  return loadMustache().render(template, view, {}, AS_TEXT).trim().slice(0, MESSAGE_TEXT_MAX);
}
