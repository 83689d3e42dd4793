// Pieces every view uses: a labelled field with its error, a refusal's message, JSON shown as text.
import type { ComponentChildren } from 'preact';
import type { FieldErrors, FieldSpec, FormValues } from './forms.js';
import { inlineMarkdown } from './markdown.js';

interface FieldProps {
  /** Unique on the page: the control's id, and its error's. */
  id: string;
  spec: FieldSpec;
  values: FormValues;
  errors: FieldErrors;
  onInput: (name: string, value: string) => void;
}

/** A form field: its label, a hint, the control and the error that points at it. */
export function Field({ id, spec, values, errors, onInput }: FieldProps) {
  const error = errors[spec.name];
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const common = {
    id,
    name: spec.name,
    value: values[spec.name] ?? '',
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${hintId} ${errorId}` : hintId,
    required: spec.required,
    onInput: (event: Event) => onInput(spec.name, (event.currentTarget as HTMLInputElement).value),
  };
  const choices = spec.options ?? (spec.kind === 'boolean' ? [true, false] : undefined);
  return (
    <div class="field">
      <label for={id}>
        {spec.label ?? spec.name}
        {spec.required ? '' : ' (optional)'}
      </label>
      <span class="hint" id={hintId}>
        <Markdown text={spec.hint ?? ''} />
      </span>
      {choices ? (
        <select {...common} onChange={common.onInput}>
          <option value="">{spec.required ? 'Choose…' : 'Not sent'}</option>
          {choices.map((choice) => (
            <option key={JSON.stringify(choice)} value={JSON.stringify(choice)}>
              {String(choice)}
            </option>
          ))}
        </select>
      ) : spec.kind === 'json' ? (
        <textarea {...common} rows={3} spellcheck={false} />
      ) : (
        <input {...common} type="text" inputMode={spec.kind === 'text' ? undefined : 'decimal'} />
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A description's inline Markdown as elements: code, strong, emphasis, links (opened in a new tab). */
export function Markdown({ text }: { text: string }) {
  return (
    <>
      {inlineMarkdown(text).map((span, i) => {
        const key = `${i}${span.kind}`;
        if (span.kind === 'code') return <code key={key}>{span.text}</code>;
        if (span.kind === 'strong') return <strong key={key}>{span.text}</strong>;
        if (span.kind === 'em') return <em key={key}>{span.text}</em>;
        if (span.kind === 'link') {
          return (
            <a key={key} href={span.href} target="_blank" rel="noreferrer">
              {span.text}
            </a>
          );
        }
        return span.text;
      })}
    </>
  );
}

/** A failure to show: announced as it appears. */
/**
 * The fields of a form built from a schema, each named `${idPrefix}-${name}`, then the error that belongs
 * to no field (under the empty name).
 */
export function FieldList({
  idPrefix,
  fields,
  values,
  errors,
  onValues,
}: {
  idPrefix: string;
  fields: FieldSpec[];
  values: FormValues;
  errors: FieldErrors;
  onValues: (values: FormValues) => void;
}) {
  return (
    <>
      {fields.map((spec) => (
        <Field
          key={spec.name}
          id={`${idPrefix}-${spec.name}`}
          spec={spec}
          values={values}
          errors={errors}
          onInput={(name, value) => onValues({ ...values, [name]: value })}
        />
      ))}
      {errors[''] && <Problem>{errors['']}</Problem>}
    </>
  );
}

export function Problem({ children }: { children: ComponentChildren }) {
  return (
    <p class="problem" role="alert">
      {children}
    </p>
  );
}

/** A status line that screen readers announce politely. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** Text that may scroll, in a region the keyboard reaches and screen readers name. */
export function CodeBlock({ text, label }: { text: string; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <section class="code" tabIndex={0} aria-label={label}>
      <pre>{text}</pre>
    </section>
  );
}

/** JSON, pretty-printed. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return <CodeBlock text={value === undefined ? '' : JSON.stringify(value, null, 2)} label={label} />;
}
