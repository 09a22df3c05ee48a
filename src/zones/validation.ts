import { invalidArgument } from '../errors.ts';
import {
  coveredCells,
  MIN_ZONE_AREA,
  polygonArea,
  simplicityProblem,
  type Vertex,
} from './geometry.ts';

/** A zone as clients send and receive it. */
export interface ZoneInput {
  id: string;
  name: string;
  color: string;
  vertices: Vertex[];
}

/** A valid zone, normalized (color in lower case), with the grid cells it covers. */
export interface CheckedZone extends ZoneInput {
  cells: number[];
}

export const MAX_ZONES = 5;
export const MIN_VERTICES = 3;
export const MAX_VERTICES = 32;
export const MAX_NAME_LENGTH = 64;
/** The ids a user may define; `zR` is the camera's system zone, reserved. */
export const USER_ZONE_IDS = ['z1', 'z2', 'z3', 'z4', 'z5'] as const;
export const SYSTEM_ZONE_ID = 'zR';

/** Whether `id` names a zone: a user zone z1..z5 or the system zone zR. */
export const isZoneId = (id: string): boolean =>
  id === SYSTEM_ZONE_ID || (USER_ZONE_IDS as readonly string[]).includes(id);

const COLOR = /^#[0-9a-f]{6}$/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Checks a zone list against every rule and returns it normalized with each zone's cells; the
 * first violation is a 400 naming its field as a path, e.g. `zones.2.vertices.1.x`.
 */
export function checkZones(zones: readonly ZoneInput[], field = 'zones'): CheckedZone[] {
  if (zones.length > MAX_ZONES) {
    throw invalidArgument(field, `at most ${MAX_ZONES} zones, got ${zones.length}`);
  }
  const seen = new Set<string>();
  return zones.map((zone, i) => {
    const at = `${field}.${i}`;
    if (zone.id === SYSTEM_ZONE_ID) {
      throw invalidArgument(`${at}.id`, `${SYSTEM_ZONE_ID} is the system zone and cannot be saved`);
    }
    if (!(USER_ZONE_IDS as readonly string[]).includes(zone.id)) {
      throw invalidArgument(`${at}.id`, `zone ids are ${USER_ZONE_IDS.join(', ')}`);
    }
    if (seen.has(zone.id)) throw invalidArgument(`${at}.id`, `zone id ${zone.id} is repeated`);
    seen.add(zone.id);

    const nameLength = [...zone.name].length;
    if (nameLength < 1 || nameLength > MAX_NAME_LENGTH || zone.name.trim() === '') {
      throw invalidArgument(
        `${at}.name`,
        `name must be 1..${MAX_NAME_LENGTH} characters, not only spaces`,
      );
    }
    if (CONTROL.test(zone.name)) {
      throw invalidArgument(`${at}.name`, 'name must not hold control characters');
    }
    if (!COLOR.test(zone.color)) {
      throw invalidArgument(`${at}.color`, 'color must be #rrggbb (hexadecimal)');
    }

    const { vertices } = zone;
    if (vertices.length < MIN_VERTICES || vertices.length > MAX_VERTICES) {
      throw invalidArgument(
        `${at}.vertices`,
        `a zone has ${MIN_VERTICES}..${MAX_VERTICES} vertices, got ${vertices.length}`,
      );
    }
    vertices.forEach((vertex, j) => {
      for (const axis of ['x', 'y'] as const) {
        const value = vertex[axis];
        if (!Number.isFinite(value) || value < 0 || value > 1) {
          throw invalidArgument(`${at}.vertices.${j}.${axis}`, `${axis} must be in [0, 1]`);
        }
      }
    });
    const problem = simplicityProblem(vertices);
    if (problem?.kind === 'repeated_vertex') {
      throw invalidArgument(
        `${at}.vertices.${problem.vertex}`,
        'the polygon repeats the previous vertex',
      );
    }
    if (problem) {
      const [a, b] = problem.edges;
      throw invalidArgument(
        `${at}.vertices`,
        `the polygon intersects itself: edges ${a} and ${b} ${problem.kind === 'edges_cross' ? 'meet' : 'overlap'} (edge i runs from vertex i to the next)`,
        { edges: problem.edges },
      );
    }
    if (polygonArea(vertices) < MIN_ZONE_AREA) {
      throw invalidArgument(
        `${at}.vertices`,
        `the polygon encloses no area (at least ${MIN_ZONE_AREA} of the frame)`,
      );
    }
    // Copies, so that no extra members of the input are stored.
    const normalized = vertices.map(({ x, y }) => ({ x: x + 0, y: y + 0 }));
    return {
      id: zone.id,
      name: zone.name,
      color: zone.color.toLowerCase(),
      vertices: normalized,
      cells: coveredCells(normalized),
    };
  });
}
