// The server's refusals of an action placed at the fields they name. The console's sentences name their field two
// ways: the action's own rules start with the field's path (`url: …`, `parameters[1].pattern: …`), schema checks with
// its label (`Name: has the wrong form`, in the member's language); a sentence naming no field stays on the form's
// line.
import { ApiError, errorText } from '../../api.ts';

/** Field → its sentences; `form` holds the rest. A parameter's own field is `parameters.<index>`. */
export type FieldErrors = Record<string, string[]>;

const FIELDS = ['name', 'description', 'kind', 'method', 'url', 'headers', 'body', 'parameters', 'answer', 'errorAnswer', 'timeoutMs', 'enabled'];

/** Labels of the schema's sentences (http/console/validation-sentences.ts) → the field; a parameter's go to the list. */
const LABELS: Record<string, string> = {
  Name: 'name',
  Имя: 'name',
  Description: 'description',
  Kind: 'kind',
  Method: 'method',
  Url: 'url',
  Headers: 'headers',
  Secret: 'headers',
  Body: 'body',
  Parameters: 'parameters',
  Pattern: 'parameters',
  Values: 'parameters',
  Prompt: 'parameters',
  Source: 'parameters',
  Type: 'parameters',
  Answer: 'answer',
  Ответ: 'answer',
  'Error answer': 'errorAnswer',
  'Timeout ms': 'timeoutMs',
  Enabled: 'enabled',
};

function fieldOf(sentence: string): string {
  const parameter = /^parameters\[(\d+)\]/.exec(sentence);
  if (parameter) return `parameters.${parameter[1]}`;
  const path = /^([a-zA-Z]+)(?=[:.[ ])/.exec(sentence)?.[1];
  if (path && FIELDS.includes(path) && /^[a-zA-Z]+(\[\d+\]|\.[\w.[\]]+)*(:| must)/.test(sentence)) return path;
  const label = /^([^:]{1,40}):/.exec(sentence)?.[1];
  return (label && LABELS[label]) || 'form';
}

/** The failure of a save, sentence by sentence at its field. */
export function fieldErrorsOf(failure: unknown): FieldErrors {
  const sentences = failure instanceof ApiError ? failure.messages : [errorText(failure)];
  const errors: FieldErrors = {};
  for (const sentence of sentences) (errors[fieldOf(sentence)] ??= []).push(sentence);
  return errors;
}

const idOf = (field: string) => `action-error-${field.replace('.', '-')}`;

/** What a field's input carries when the server refused it: marked invalid, described by its sentences. */
export function invalidProps(errors: FieldErrors, field: string): { 'aria-invalid'?: true; 'aria-describedby'?: string } {
  return errors[field] ? { 'aria-invalid': true, 'aria-describedby': idOf(field) } : {};
}

/** The sentences of one field, right below it. */
export function FieldError({ errors, field }: { errors: FieldErrors; field: string }) {
  const sentences = errors[field];
  if (!sentences) return null;
  return (
    <p class="error field-error" id={idOf(field)} role="alert">
      {sentences.join(' ')}
    </p>
  );
}
