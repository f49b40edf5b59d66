// The demo animal catalog (`/demo/v1`, the spec's area B): each account's own animals, a bearer API key, and
// every error as the Error resource `{ code, message, status }`.
import { Type, type Static } from 'typebox';
import { route } from '../route.ts';
import { object, stringEnum } from '../schema.ts';

/** The demo catalog's own API version (spec: 1.0.0, served under `/v1`). */
export const DEMO_API_VERSION = '1.0.0';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const PET_NAME_MAX = 200;
export const PETS_LIMIT_DEFAULT = 20;
export const PETS_LIMIT_MAX = 100;

/** `GET /pets/{petId}` is removed on this day (spec); sent as the `Sunset` header (RFC 8594). */
export const GET_PET_SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

/**
 * A signed 64-bit integer: a JSON number on the wire, a `bigint` in the server, so values above 2^53 stay
 * exact. The server validates it with its own keyword (Ajv's `integer` knows no bigint).
 */
export function int64(options: { description?: string; minimum?: number } = {}) {
  return Type.Unsafe<bigint>({ type: 'integer', format: 'int64', ...options });
}

const PetStatusSchema = stringEnum(PET_STATUSES, { description: 'Status of the animal in the catalog' });
const PetId = int64({ minimum: 1, description: 'Animal ID, assigned on creation' });
const CategoryId = int64({ description: 'Category of the animal (any int64)' });
const PetName = Type.String({ minLength: 1, maxLength: PET_NAME_MAX, description: 'Name of the animal' });

export const NewPet = object(
  { name: PetName, categoryId: CategoryId, status: Type.Optional(PetStatusSchema) },
  { title: 'NewPet', description: 'An animal to add' },
);
export type NewPet = Static<typeof NewPet>;

export const Pet = object(
  { id: PetId, name: Type.String(), categoryId: CategoryId, status: Type.Optional(PetStatusSchema) },
  { title: 'Pet', description: 'An animal of the catalog' },
);
export type Pet = Static<typeof Pet>;

/** Every error of the demo catalog, whatever its status. */
export const DemoError = object(
  {
    code: Type.String({ description: 'Machine-readable code, e.g. `unauthorized`, `bad_request`, `not_found`' }),
    message: Type.String(),
    status: Type.Integer({ description: 'The HTTP status code' }),
  },
  { title: 'Error', description: 'Error' },
);
export type DemoError = Static<typeof DemoError>;

export const ListPetsQuery = object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: PETS_LIMIT_MAX, default: PETS_LIMIT_DEFAULT, description: 'Page size' }),
  ),
  status: Type.Optional(PetStatusSchema),
  after: Type.Optional(
    int64({ minimum: 1, description: 'Cursor: the ID of the last animal of the previous page (see the `Link` header)' }),
  ),
});
export type ListPetsQuery = Static<typeof ListPetsQuery>;

export const demoRoutes = {
  listPets: route({
    method: 'GET',
    url: '/pets',
    operationId: 'listPets',
    summary: 'List animals',
    description:
      'Animals of the caller\'s account by ID ascending. When more follow, the response has a ' +
      '`Link: </demo/v1/pets?limit=N&after=ID[&status=…]>; rel="next"` header pointing at the next page; ' +
      'the last page has none.',
    tags: ['Pets'],
    schema: {
      querystring: ListPetsQuery,
      response: { 200: Type.Array(Pet), 400: DemoError, 401: DemoError },
    },
  }),
  createPet: route({
    method: 'POST',
    url: '/pets',
    operationId: 'createPet',
    summary: 'Add an animal',
    tags: ['Pets'],
    schema: {
      querystring: object({}),
      body: NewPet,
      response: { 201: Pet, 400: DemoError, 401: DemoError },
    },
  }),
  getPet: route({
    method: 'GET',
    url: '/pets/:petId',
    operationId: 'getPet',
    summary: 'Get an animal',
    description:
      'Deprecated: removed on 5 December 2030 (`Deprecation` and `Sunset` headers on every response); ' +
      'use `GET /pets` with the `status` filter instead.',
    deprecated: true,
    responseHeaders: {
      Deprecation: { description: 'Always `true`: the operation is deprecated', schema: Type.String({ enum: ['true'] }) },
      Sunset: { description: `When the operation is removed (RFC 8594): \`${GET_PET_SUNSET}\``, schema: Type.String({ example: GET_PET_SUNSET }) },
    },
    tags: ['Pets'],
    schema: {
      params: object({ petId: PetId }),
      querystring: object({}),
      response: { 200: Pet, 400: DemoError, 401: DemoError, 404: DemoError },
    },
  }),
} as const;
