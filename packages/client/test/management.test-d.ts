// Type tests of the management client: the paginate iterator and throwOnError.
import { describe, expectTypeOf, it } from 'vitest';
import {
  createManagementClient,
  type ManagementApi,
  type ManagementClient,
  type PageItem,
  type ThrowingManagementClient,
} from '../src/index.js';

type Schemas = ManagementApi.components['schemas'];
const management = createManagementClient({ baseUrl: 'http://127.0.0.1:4010', auth: { token: 't' } });
const throwing = createManagementClient({ baseUrl: 'http://127.0.0.1:4010', auth: { token: 't' }, throwOnError: true });

describe('paginate', () => {
  it('yields the item type of each list operation, from the generated paths', async () => {
    for await (const topic of management.paginate('/api/event_streams/topics')) {
      expectTypeOf(topic).toEqualTypeOf<Schemas['Topic']>();
    }
    for await (const key of management.paginate('/api/v2/api_clients/{api_client_id}/api_keys', {
      params: { path: { api_client_id: 1 } },
    })) {
      expectTypeOf(key).toEqualTypeOf<Schemas['ApiKey']>();
    }
    expectTypeOf<PageItem<'/api/v2/api_clients'>>().toEqualTypeOf<Schemas['ApiClient']>();
    // A list answered with a bare array:
    expectTypeOf<PageItem<'/api/folders'>>().toEqualTypeOf<Schemas['Folder']>();
    // A list answered in `{items}`:
    expectTypeOf<PageItem<'/api/recipes'>>().toEqualTypeOf<Schemas['Recipe']>();
    // A list whose items are nested deeper than the generator looks (`{data: {tags}}`):
    expectTypeOf<PageItem<'/api/tags'>>().toBeUnknown();
  });

  it("takes the operation's parameters, but not the page ones", () => {
    void management.paginate('/api/recipes', { params: { query: { folder_id: 4, running: true } }, pageSize: 20 });
    // @ts-expect-error paginate sets the page number itself
    void management.paginate('/api/recipes', { params: { query: { page: 2 } } });
    // @ts-expect-error nor the page size: use pageSize
    void management.paginate('/api/event_streams/topics', { params: { query: { per_page: 5 } } });
    // @ts-expect-error the path parameter is required
    void management.paginate('/api/v2/api_clients/{api_client_id}/api_keys');
    const path = { api_client_id: 'x' };
    // @ts-expect-error api_client_id is an integer
    void management.paginate('/api/v2/api_clients/{api_client_id}/api_keys', { params: { path } });
    // @ts-expect-error not a list operation
    void management.paginate('/api/event_streams/topics/{topic_id}', { params: { path: { topic_id: 1 } } });
  });
});

describe('throwOnError', () => {
  it('picks the client type from the option', () => {
    expectTypeOf(management).toEqualTypeOf<ManagementClient>();
    expectTypeOf(throwing).toEqualTypeOf<ThrowingManagementClient>();
  });

  it('answers data without an error member', async () => {
    const { data, response } = await throwing.GET('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: 1 } },
    });
    expectTypeOf(data).toEqualTypeOf<Schemas['Topic']>();
    expectTypeOf(response).toEqualTypeOf<Response>();
    const { data: maybe } = await management.GET('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: 1 } },
    });
    expectTypeOf(maybe).toEqualTypeOf<Schemas['Topic'] | undefined>();
    // @ts-expect-error the path parameter is still required
    void throwing.GET('/api/event_streams/topics/{topic_id}');
    // @ts-expect-error the body is still checked
    void throwing.POST('/api/event_streams/topics', { body: { name: 'orders' } });
  });
});

describe('payload types of management 2.0.0', () => {
  it("types a recipe: running is a boolean, and the recipe's id a number, not a string", async () => {
    const { data } = await throwing.GET('/api/recipes/{id}', { params: { path: { id: 7821 } } });
    expectTypeOf(data.running).toEqualTypeOf<boolean>();
    expectTypeOf(data.folder_id).toEqualTypeOf<number>();
    // @ts-expect-error a recipe id is a number
    await management.GET('/api/recipes/{id}', { params: { path: { id: '7821' } } });
  });

  it('types a data table record query and a lookup by column', async () => {
    const { data } = await throwing.POST('/api/v1/tables/{data_table_id}/query', {
      params: { path: { data_table_id: '0e8d7a52-5b0c-4a43-9a3e-2f5cbb2f6c11' } },
      body: {},
    });
    expectTypeOf(data.data).toEqualTypeOf<Schemas['DataTableRecord'][]>();
    // @ts-expect-error create_recipe's body is wrapped in `recipe`
    await management.POST('/api/recipes', { body: { name: 'Sync' } });
  });
});
