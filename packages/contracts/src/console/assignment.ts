// Auto-assignment and team hours (issue #44, item 2: Team workbench → availability, auto-assignment, team hours):
// the account's assignment settings and weekly team hours. A member's availability is in the profile (profile.ts),
// a member's own capacity in the team's member update (members.ts).
import { Type, type Static } from 'typebox';
import { route } from '../route.ts';
import { nullable, object, stringEnum } from '../schema.ts';
import { WEEKDAYS } from './channels.ts';
import { ConsoleErrors } from './common.ts';

export const ASSIGNMENT_MODES = ['off', 'round_robin', 'least_busy'] as const;
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];
export const CAPACITY_MIN = 1;
export const CAPACITY_MAX = 100;


export const AssignmentSettings = object({
  mode: stringEnum(ASSIGNMENT_MODES, {
    description:
      '`off` (default): chats that need a person wait for someone to take them; `round_robin`: the member assigned least recently; `least_busy`: the member with the fewest open assigned chats',
  }),
  capacity: Type.Integer({
    minimum: CAPACITY_MIN,
    maximum: CAPACITY_MAX,
    description: 'open (not done) assigned chats per member unless the member has a capacity of their own (default 10)',
  }),
  onlyAvailable: Type.Boolean({ description: 'only members whose availability is `available` get chats (default true)' }),
});
export type AssignmentSettings = Static<typeof AssignmentSettings>;

const HourRange = Type.Array(Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$', description: 'HH:MM local time; 24:00 = midnight' }), {
  minItems: 2,
  maxItems: 2,
  description: '["from", "to"]: `to` after `from`',
});
const DayHours = Type.Array(HourRange, { maxItems: 10, description: 'the day\'s ranges; [] = closed' });

export const TeamHours = object({
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin' }),
  weekly: nullable(
    object(
      Object.fromEntries(WEEKDAYS.map((day) => [day, DayHours])) as Record<(typeof WEEKDAYS)[number], typeof DayHours>,
      { description: 'each weekday\'s hours; null: always open' },
    ),
  ),
});
export type TeamHours = Static<typeof TeamHours>;

export const assignmentRoutes = {
  getAssignmentSettings: route({
    method: 'GET',
    url: '/account/assignment/',
    operationId: 'getAssignmentSettings',
    role: 'admin',
    summary: "The account's auto-assignment: mode, capacity per member, only available members",
    tags: ['Team'],
    schema: { response: { 200: AssignmentSettings, ...ConsoleErrors } },
  }),
  updateAssignmentSettings: route({
    method: 'PUT',
    url: '/account/assignment/',
    operationId: 'updateAssignmentSettings',
    role: 'admin',
    summary: 'Change auto-assignment: only the fields named change',
    description:
      'A chat that needs a person (a handoff, a follow-through) and has no assignee goes to an active member (available, with `onlyAvailable`) with fewer open assigned chats than their capacity; with none it waits, and waiting chats are assigned oldest first when a member becomes available, frees a slot (done, unassigned) or team hours open.',
    tags: ['Team'],
    schema: {
      body: object({
        mode: Type.Optional(AssignmentSettings.properties.mode),
        capacity: Type.Optional(AssignmentSettings.properties.capacity),
        onlyAvailable: Type.Optional(AssignmentSettings.properties.onlyAvailable),
      }),
      response: { 200: AssignmentSettings, ...ConsoleErrors },
    },
  }),
  getTeamHours: route({
    method: 'GET',
    url: '/account/hours/',
    operationId: 'getTeamHours',
    role: 'admin',
    summary: "The team's weekly hours (default: UTC, always open)",
    tags: ['Team'],
    schema: { response: { 200: TeamHours, ...ConsoleErrors } },
  }),
  updateTeamHours: route({
    method: 'PUT',
    url: '/account/hours/',
    operationId: 'updateTeamHours',
    role: 'admin',
    summary: "Set the team's weekly hours: outside them a handoff's message says when the team is back, and chats are assigned at opening",
    description: '400 for an unknown time zone or a range whose end is not after its start.',
    tags: ['Team'],
    schema: { body: TeamHours, response: { 200: TeamHours, ...ConsoleErrors } },
  }),
} as const;
