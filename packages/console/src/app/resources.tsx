// Resources: every management resource family the spec declares (the resource engine's types), its
// items by name, an item's JSON; items created with the fields of the family's create operation and
// deleted through its delete operation.
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, api, messageOf, must, type ResourceItem, type ResourceType } from './api.js';
import { createFields, type FieldErrors, type FormValues, valuesToObject, violationsByField } from './forms.js';
import { Field, FieldList, JsonBlock, Notice, Problem } from './ui.js';

export function ResourcesView() {
  const [types, setTypes] = useState<ResourceType[]>();
  const [problem, setProblem] = useState<string>();
  const [typeName, setTypeName] = useState('');

  const loadTypes = () =>
    must(api.GET('/_emulator/resources')).then(
      ({ types: list }) => setTypes(list),
      (error: unknown) => setProblem(messageOf(error)),
    );
  useEffect(() => {
    loadTypes();
  }, []);

  const type = types?.find((candidate) => candidate.name === typeName);
  return (
    <>
      <p class="lead">The management resources the emulator keeps, by family, as the management API serves them.</p>
      {problem && <Problem>{problem}</Problem>}
      <div class="field">
        <label for="resource-family">Resource family</label>
        <select id="resource-family" value={typeName} onChange={(event) => setTypeName(event.currentTarget.value)}>
          <option value="">Choose a family…</option>
          {types?.map((candidate) => (
            <option key={candidate.name} value={candidate.name}>
              {candidate.name} ({candidate.count})
            </option>
          ))}
        </select>
      </div>
      {type ? (
        <Family key={type.name} type={type} onChange={loadTypes} />
      ) : (
        types && <Overview types={types} onPick={setTypeName} />
      )}
    </>
  );
}

/** Before a family is picked: every family with its count, those holding items first, each a way in. */
function Overview({ types, onPick }: { types: ResourceType[]; onPick: (name: string) => void }) {
  const sorted = [...types].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  const items = types.reduce((sum, type) => sum + type.count, 0);
  const holding = types.filter((type) => type.count > 0).length;
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">All families</h2>
      <p class="hint">
        {items} items in {holding} of {types.length} families. Pick one to see its items, create or delete.
      </p>
      <div class="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Family</th>
              <th scope="col">Items</th>
              <th scope="col">Create</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((type) => (
              <tr key={type.name}>
                <th scope="row">
                  <button type="button" class="link" onClick={() => onPick(type.name)}>
                    {type.name}
                  </button>
                  {type.parent && <span class="hint"> in a {type.parent}</span>}
                </th>
                <td>{type.count}</td>
                <td>{type.create ? type.create.operation : 'read-only here'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Family({ type, onChange }: { type: ResourceType; onChange: () => void }) {
  const [items, setItems] = useState<ResourceItem[]>();
  const [problem, setProblem] = useState<string>();
  const [openId, setOpenId] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const load = () =>
    must(api.GET('/_emulator/resources/{type}', { params: { path: { type: type.name } } })).then(
      ({ items: list }) => setItems(list),
      (error: unknown) => setProblem(messageOf(error)),
    );
  useEffect(() => {
    load();
  }, [type.name]);

  const changed = (message: string, id?: string) => {
    setNotice(message);
    setOpenId(id);
    load();
    onChange();
  };
  const remove = async (item: ResourceItem) => {
    setProblem(undefined);
    try {
      await must(
        api.DELETE('/_emulator/resources/{type}/{id}', {
          params: {
            path: { type: type.name, id: item.id },
            query: item.parent === null ? {} : { parent: item.parent },
          },
        }),
      );
      changed(`Deleted ${type.name} ${item.name ?? item.id}.`);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const opened = items?.find((item) => item.id === openId);
  return (
    <section class="detail" aria-labelledby="family-title">
      <h2 id="family-title">{type.name}</h2>
      <p class="hint">
        {type.parent ? `Items belong to a ${type.parent}. ` : ''}
        {type.singleton ? 'One per workspace or parent. ' : ''}
        {type.create ? `Created through ${type.create.operation}` : 'No create operation to run from here'}
        {type.delete ? `, deleted through ${type.delete}.` : '.'}
      </p>
      {problem && <Problem>{problem}</Problem>}
      {notice && <Notice>{notice}</Notice>}
      <div class="columns">
        <section aria-labelledby="items-title">
          <h3 id="items-title">Items</h3>
          {items && items.length === 0 && <p>None yet.</p>}
          <ul class="pick-list" aria-label={`Items of ${type.name}`}>
            {items?.map((item) => (
              <li key={`${item.parent}/${item.id}`}>
                <button type="button" aria-pressed={item.id === openId} onClick={() => setOpenId(item.id)}>
                  {item.name ?? `${type.id_field} ${item.id}`}
                </button>{' '}
                <span class="hint">
                  {type.id_field} {item.id}
                  {item.parent !== null && `, in ${type.parent} ${item.parent}`}
                </span>
              </li>
            ))}
          </ul>
          {opened && (
            <>
              <h4>
                {type.name} {opened.name ?? opened.id}
              </h4>
              <JsonBlock value={opened.value} label={`${type.name} ${opened.id} as JSON`} />
              {type.delete && (
                <button type="button" class="danger" onClick={() => remove(opened)}>
                  Delete {opened.name ?? opened.id}
                </button>
              )}
            </>
          )}
        </section>
        {type.create && (
          <CreateForm
            type={type}
            onCreated={(item) => changed(`Created ${type.name} ${item.name ?? item.id}.`, item.id)}
          />
        )}
      </div>
    </section>
  );
}

function CreateForm({ type, onCreated }: { type: ResourceType; onCreated: (item: ResourceItem) => void }) {
  const fields = createFields(type.create?.fields ?? []);
  const [values, setValues] = useState<FormValues>({});
  const [parent, setParent] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  const submit = async (event: Event) => {
    event.preventDefault();
    const built = valuesToObject(fields, values);
    if ('errors' in built) return setErrors(built.errors);
    if (type.parent && !parent.trim()) return setErrors({ $parent: 'Required' });
    try {
      const created = await must(
        api.POST('/_emulator/resources/{type}', {
          params: { path: { type: type.name }, query: type.parent ? { parent: parent.trim() } : {} },
          body: built.value,
        }),
      );
      setErrors({});
      setValues({});
      onCreated(created);
    } catch (error) {
      setErrors(
        error instanceof ApiFailure
          ? { '': error.message, ...violationsByField(error.violations) }
          : { '': messageOf(error) },
      );
    }
  };

  return (
    <section aria-labelledby="create-title">
      <h3 id="create-title">Create a {type.name}</h3>
      <form onSubmit={submit} noValidate>
        {type.parent && (
          <Field
            id="create-parent-item"
            spec={{ name: '$parent', label: `Parent ${type.parent}`, kind: 'text', required: true, hint: 'its id' }}
            values={{ $parent: parent }}
            errors={errors}
            onInput={(_, value) => setParent(value)}
          />
        )}
        <FieldList idPrefix="create" fields={fields} values={values} errors={errors} onValues={setValues} />
        <button type="submit">Create</button>
      </form>
    </section>
  );
}
