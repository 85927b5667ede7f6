// The project configuration by its groups (scope, fetch, content, output, advanced), every key
// with its default and meaning as GET /v1/meta describes them. Only the keys changed here are
// sent, as a partial config the API merges; "More settings" takes any key as JSON, and a key the
// API does not know comes back refused by name.
import { useId, useMemo, useState } from 'react';
import type { Project } from '../../types';
import { useLoad } from '../../ui/load';
import { ErrorNote, Loading } from '../../ui/states';

interface KeyDoc {
  type: JsonSchema;
  default: unknown;
  description: string;
}
interface JsonSchema {
  type?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
}
interface Meta {
  config: { keys: Record<string, Record<string, KeyDoc>> };
}

type Kind = 'boolean' | 'enum' | 'number' | 'lines' | 'multi' | 'text' | 'json';

/** What control a key gets, read from its JSON schema. */
const kindOf = (s: JsonSchema): { kind: Kind; nullable: boolean; options: string[] } => {
  const parts = s.anyOf ?? [s];
  const nullable = parts.some((p) => p.type === 'null');
  const main = parts.find((p) => p.type !== 'null') ?? s;
  if (main.anyOf) return { kind: 'json', nullable, options: [] };
  if (main.type === 'boolean') return { kind: 'boolean', nullable, options: [] };
  if (main.enum) return { kind: 'enum', nullable, options: main.enum };
  if (main.type === 'integer' || main.type === 'number') return { kind: 'number', nullable, options: [] };
  if (main.type === 'array' && main.items?.enum) return { kind: 'multi', nullable, options: main.items.enum };
  if (main.type === 'array' && main.items?.type === 'string') return { kind: 'lines', nullable, options: [] };
  if (main.type === 'string') return { kind: 'text', nullable, options: [] };
  return { kind: 'json', nullable, options: [] };
};

const shown = (v: unknown): string =>
  v === null
    ? 'none'
    : Array.isArray(v)
      ? v.length
        ? v.join(', ')
        : 'empty'
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

/** The draft's value as the text a control holds, and back. */
const toText = (kind: Kind, v: unknown): string =>
  kind === 'lines'
    ? ((v as string[] | null) ?? []).join('\n')
    : kind === 'json'
      ? v === null || v === undefined
        ? ''
        : JSON.stringify(v, null, 1)
      : v === null || v === undefined
        ? ''
        : String(v);

const KeyControl = ({
  name,
  doc,
  value,
  onChange,
}: {
  name: string;
  doc: KeyDoc;
  value: unknown;
  onChange(v: unknown, invalid?: string): void;
}) => {
  const id = useId();
  const { kind, nullable, options } = kindOf(doc.type);
  const [text, setText] = useState(toText(kind, value));
  const hint = (
    <small id={`${id}-hint`} className="hint">
      {doc.description}. Default: {shown(doc.default)}.
    </small>
  );
  if (kind === 'boolean')
    return (
      <div className="field check">
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          aria-describedby={`${id}-hint`}
        />
        <label htmlFor={id}>{name}</label>
        {hint}
      </div>
    );
  if (kind === 'multi')
    return (
      <fieldset className="field multi" aria-describedby={`${id}-hint`}>
        <legend>{name}</legend>
        {options.map((o) => (
          <label key={o} className="check">
            <input
              type="checkbox"
              checked={((value as string[]) ?? []).includes(o)}
              onChange={(e) => {
                const now = new Set((value as string[]) ?? []);
                if (e.target.checked) now.add(o);
                else now.delete(o);
                onChange(options.filter((x) => now.has(x)));
              }}
            />{' '}
            {o}
          </label>
        ))}
        {hint}
      </fieldset>
    );
  const parse = (t: string) => {
    setText(t);
    if (kind === 'enum' || kind === 'text') return onChange(t === '' && nullable ? null : t);
    if (kind === 'number') return onChange(t.trim() === '' ? (nullable ? null : doc.default) : Number(t));
    if (kind === 'lines')
      return onChange(
        t
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      );
    if (t.trim() === '') return onChange(nullable ? null : doc.default);
    try {
      onChange(JSON.parse(t));
    } catch {
      onChange(value, `${name}: not valid JSON`);
    }
  };
  return (
    <div className="field">
      <label htmlFor={id}>{name}</label>
      {kind === 'enum' ? (
        <select
          id={id}
          value={String(value ?? '')}
          onChange={(e) => parse(e.target.value)}
          aria-describedby={`${id}-hint`}
        >
          {nullable && <option value="">none</option>}
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      ) : kind === 'lines' || kind === 'json' ? (
        <textarea
          id={id}
          rows={kind === 'json' ? 3 : Math.min(6, Math.max(2, text.split('\n').length))}
          value={text}
          onChange={(e) => parse(e.target.value)}
          aria-describedby={`${id}-hint`}
          placeholder={kind === 'lines' ? 'one per line' : 'JSON'}
        />
      ) : (
        <input
          id={id}
          type={kind === 'number' ? 'number' : 'text'}
          step="any"
          value={text}
          placeholder={nullable ? 'none' : undefined}
          onChange={(e) => parse(e.target.value)}
          aria-describedby={`${id}-hint`}
        />
      )}
      {hint}
    </div>
  );
};

export interface ConfigDraft {
  /** Keys changed from the saved config, flat, as PATCH /projects/{id} takes them. */
  patch: Record<string, unknown>;
  /** A control that cannot be read (bad JSON): saving waits for it. */
  invalid: string | null;
}

/** The groups of the config as form sections; reports the draft on every change. */
export const ConfigEditor = ({
  project,
  onDraft,
  groups,
}: {
  project: Project;
  onDraft(d: ConfigDraft): void;
  /** Only these groups (the wizard shows scope first); all by default. */
  groups?: string[];
}) => {
  const meta = useLoad<Meta>('/meta');
  const saved = useMemo(() => {
    const flat: Record<string, unknown> = {};
    for (const [g, keys] of Object.entries(project.config))
      if (g !== 'version' && keys && typeof keys === 'object') Object.assign(flat, keys);
    return flat;
  }, [project]);
  const [values, setValues] = useState<Record<string, unknown>>(saved);
  const [invalid, setInvalid] = useState<Record<string, string>>({});
  const [extra, setExtra] = useState('');
  const [extraError, setExtraError] = useState<string | null>(null);

  const report = (next: Record<string, unknown>, bad: Record<string, string>, extraText: string) => {
    const patch: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(next)) if (JSON.stringify(v) !== JSON.stringify(saved[k])) patch[k] = v;
    let extraBad: string | null = null;
    if (extraText.trim()) {
      try {
        const more = JSON.parse(extraText) as unknown;
        if (!more || typeof more !== 'object' || Array.isArray(more)) throw new Error('an object');
        Object.assign(patch, more);
      } catch {
        extraBad = 'More settings: give a JSON object, e.g. {"max_pages": 50}';
      }
    }
    setExtraError(extraBad);
    onDraft({ patch, invalid: Object.values(bad)[0] ?? extraBad });
  };

  if (meta.error) return <ErrorNote error={meta.error} />;
  if (!meta.data) return <Loading what="Loading the settings" />;
  return (
    <div className="config-editor">
      {Object.entries(meta.data.config.keys)
        .filter(([group]) => !groups || groups.includes(group))
        .map(([group, keys]) => (
          <fieldset key={group} className="group">
            <legend>{group}</legend>
            {Object.entries(keys).map(([name, doc]) => (
              <KeyControl
                key={name}
                name={name}
                doc={doc}
                value={values[name] ?? doc.default}
                onChange={(v, bad) => {
                  const next = { ...values, [name]: v };
                  const nextBad = { ...invalid };
                  if (bad) nextBad[name] = bad;
                  else delete nextBad[name];
                  setValues(next);
                  setInvalid(nextBad);
                  report(next, nextBad, extra);
                }}
              />
            ))}
          </fieldset>
        ))}
      {!groups && (
        <div className="field">
          <label htmlFor="config-extra">More settings (JSON)</label>
          <textarea
            id="config-extra"
            rows={3}
            value={extra}
            placeholder='{"max_pages": 50}'
            aria-describedby="config-extra-hint"
            onChange={(e) => {
              setExtra(e.target.value);
              report(values, invalid, e.target.value);
            }}
          />
          <small id="config-extra-hint" className="hint">
            Any configuration key by its name or alias; a key the API does not know is refused by name.
          </small>
          {extraError && <p className="error-text">{extraError}</p>}
        </div>
      )}
    </div>
  );
};
