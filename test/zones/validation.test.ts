import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import {
  coveredCells,
  polygonArea,
  rectangle,
  simplicityProblem,
  type Vertex,
} from '../../src/zones/geometry.ts';
import { checkZones, type ZoneInput } from '../../src/zones/validation.ts';

const zone = (overrides: Partial<ZoneInput> = {}): ZoneInput => ({
  id: 'z1',
  name: 'Door',
  color: '#ff8800',
  vertices: rectangle(0.1, 0.1, 0.4, 0.4),
  ...overrides,
});

/** The field and message of the 400 that checkZones throws for `zones`. */
function rejection(zones: ZoneInput[]): { field: unknown; message: string } {
  try {
    checkZones(zones);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const error = err as AppError;
    expect(error.code).toBe('INVALID_ARGUMENT');
    return { field: error.details.field, message: error.message };
  }
  throw new Error('checkZones accepted the zones');
}

describe('checkZones', () => {
  it('accepts up to five valid zones, normalizing the color and computing the cells', () => {
    const zones = ['z1', 'z2', 'z3', 'z4', 'z5'].map((id, i) =>
      zone({ id, vertices: rectangle(0, i * 0.2, 0.5, i * 0.2 + 0.125) }),
    );
    const checked = checkZones([...zones.slice(1), { ...zones[0]!, color: '#FFaa00' }]);
    expect(checked.map((z) => z.id)).toEqual(['z2', 'z3', 'z4', 'z5', 'z1']);
    expect(checked[4]!.color).toBe('#ffaa00');
    // z1: x 0..0.5 (columns 0..7), y 0..0.125 (row 0) exactly on the grid lines.
    expect(checked[4]!.cells).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(checkZones([])).toEqual([]);
  });

  it('copies only x and y of each vertex', () => {
    const vertices = rectangle(0.1, 0.1, 0.2, 0.2).map((v) => ({ ...v, z: 1 }));
    expect(checkZones([zone({ vertices })])[0]!.vertices).toEqual(rectangle(0.1, 0.1, 0.2, 0.2));
  });

  it('refuses more than five zones', () => {
    const six = ['z1', 'z2', 'z3', 'z4', 'z5', 'z1'].map((id) => zone({ id }));
    expect(rejection(six).field).toBe('zones');
  });

  it('refuses the system zone zR, unknown ids and repeated ids', () => {
    expect(rejection([zone(), zone({ id: 'zR' })])).toEqual({
      field: 'zones.1.id',
      message: expect.stringMatching(/system zone/),
    });
    for (const id of ['z0', 'z6', 'Z1', 'z1 ', '', 'zr', 'zone1']) {
      expect(rejection([zone({ id })]).field).toBe('zones.0.id');
    }
    expect(rejection([zone({ id: 'z2' }), zone({ id: 'z3' }), zone({ id: 'z2' })])).toEqual({
      field: 'zones.2.id',
      message: expect.stringMatching(/repeated/),
    });
  });

  it('checks names: 1..64 characters, not blank, no control characters', () => {
    expect(checkZones([zone({ name: 'x'.repeat(64) })])).toHaveLength(1);
    // 64 characters outside the BMP are 128 UTF-16 code units: still 64 characters.
    expect(checkZones([zone({ name: '📷'.repeat(64) })])).toHaveLength(1);
    for (const name of ['', ' ', '\t ', 'x'.repeat(65), 'a\nb', 'a\u0000b', 'a\u007fb']) {
      expect(rejection([zone(), zone({ id: 'z2', name })]).field).toBe('zones.1.name');
    }
  });

  it('checks colors: #rrggbb', () => {
    for (const color of ['#abcdef', '#ABCDEF', '#012345']) {
      expect(checkZones([zone({ color })])).toHaveLength(1);
    }
    for (const color of [
      '',
      'red',
      '#abc',
      '#abcdefa',
      'abcdef',
      '#ghijkl',
      '#abcde ',
      ' #abcdef',
    ]) {
      expect(rejection([zone({ color })]).field).toBe('zones.0.color');
    }
  });

  it('checks the vertex count: 3..32', () => {
    const circle = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        x: 0.5 + 0.4 * Math.cos((2 * Math.PI * i) / n),
        y: 0.5 + 0.4 * Math.sin((2 * Math.PI * i) / n),
      }));
    expect(checkZones([zone({ vertices: circle(3) })])).toHaveLength(1);
    expect(checkZones([zone({ vertices: circle(32) })])).toHaveLength(1);
    for (const n of [0, 1, 2, 33]) {
      expect(rejection([zone({ vertices: circle(n) })]).field).toBe('zones.0.vertices');
    }
  });

  it('checks coordinates: numbers in [0, 1], naming the vertex and axis', () => {
    expect(checkZones([zone({ vertices: rectangle(0, 0, 1, 1) })])).toHaveLength(1);
    const cases: Array<[number, 'x' | 'y', number]> = [
      [1, 'x', -0.001],
      [2, 'y', 1.0001],
      [3, 'x', Number.NaN],
      [0, 'y', Number.POSITIVE_INFINITY],
    ];
    for (const [vertex, axis, value] of cases) {
      const vertices = rectangle(0.1, 0.1, 0.4, 0.4);
      vertices[vertex] = { ...vertices[vertex]!, [axis]: value };
      expect(rejection([zone(), zone({ id: 'z3', vertices })]).field).toBe(
        `zones.1.vertices.${vertex}.${axis}`,
      );
    }
  });

  it('refuses self-intersecting polygons', () => {
    const bowtie = [
      { x: 0.1, y: 0.1 },
      { x: 0.4, y: 0.4 },
      { x: 0.4, y: 0.1 },
      { x: 0.1, y: 0.4 },
    ];
    expect(rejection([zone({ vertices: bowtie })])).toEqual({
      field: 'zones.0.vertices',
      message: expect.stringMatching(/intersects itself: edges 0 and 2/),
    });
    // A vertex visited twice (touching, not crossing).
    const pinched = [
      { x: 0.1, y: 0.1 },
      { x: 0.3, y: 0.1 },
      { x: 0.2, y: 0.2 },
      { x: 0.3, y: 0.3 },
      { x: 0.1, y: 0.3 },
      { x: 0.2, y: 0.2 },
    ];
    expect(rejection([zone({ vertices: pinched })]).field).toBe('zones.0.vertices');
    // A vertex lying on a non-adjacent edge.
    const touching = [
      { x: 0.1, y: 0.1 },
      { x: 0.5, y: 0.1 },
      { x: 0.5, y: 0.5 },
      { x: 0.3, y: 0.1 },
      { x: 0.1, y: 0.5 },
    ];
    expect(rejection([zone({ vertices: touching })]).field).toBe('zones.0.vertices');
    // A spike: the path goes straight back over the previous edge.
    const spike = [
      { x: 0.1, y: 0.1 },
      { x: 0.5, y: 0.1 },
      { x: 0.3, y: 0.1 },
      { x: 0.3, y: 0.4 },
    ];
    expect(rejection([zone({ vertices: spike })]).message).toMatch(/overlap/);
    // The same point twice in a row.
    const repeated = [...rectangle(0.1, 0.1, 0.4, 0.4)];
    repeated.splice(2, 0, { ...repeated[1]! });
    expect(rejection([zone({ vertices: repeated })]).field).toBe('zones.0.vertices.2');
  });

  it('refuses polygons without area', () => {
    const line = [
      { x: 0.1, y: 0.1 },
      { x: 0.2, y: 0.2 },
      { x: 0.4, y: 0.4 },
    ];
    expect(rejection([zone({ vertices: line })]).field).toBe('zones.0.vertices');
    expect(rejection([zone({ vertices: rectangle(0.5, 0.5, 0.5005, 0.5005) })])).toEqual({
      field: 'zones.0.vertices',
      message: expect.stringMatching(/no area/),
    });
    expect(checkZones([zone({ vertices: rectangle(0.5, 0.5, 0.502, 0.502) })])).toHaveLength(1);
  });

  it('accepts concave polygons and either orientation', () => {
    const u = [
      { x: 0.1, y: 0.1 },
      { x: 0.2, y: 0.1 },
      { x: 0.2, y: 0.3 },
      { x: 0.3, y: 0.3 },
      { x: 0.3, y: 0.1 },
      { x: 0.4, y: 0.1 },
      { x: 0.4, y: 0.4 },
      { x: 0.1, y: 0.4 },
    ];
    expect(
      checkZones([zone({ vertices: u }), zone({ id: 'z2', vertices: [...u].reverse() })]),
    ).toHaveLength(2);
  });
});

describe('coveredCells', () => {
  it('covers the cells a polygon overlaps with area, not those it only touches', () => {
    // x 0.01..0.07 spans columns 0 and 1 (0.0625), y 0.01..0.13 rows 0 and 1 (0.125).
    expect(coveredCells(rectangle(0.01, 0.01, 0.07, 0.13))).toEqual([0, 1, 16, 17]);
    // Exactly one cell, edges on the grid lines: the neighbours are only touched.
    expect(coveredCells(rectangle(0.0625, 0.125, 0.125, 0.25))).toEqual([17]);
    expect(coveredCells(rectangle(0, 0, 1, 1))).toHaveLength(128);
    expect(coveredCells(rectangle(0.9375, 0.875, 1, 1))).toEqual([127]);
    // A triangle over the top-left quarter: its hypotenuse skips the far corner cells.
    const triangle = [
      { x: 0, y: 0 },
      { x: 0.5, y: 0 },
      { x: 0, y: 0.5 },
    ];
    const cells = coveredCells(triangle);
    expect(cells).toContain(0);
    expect(cells).not.toContain(3 * 16 + 7); // the cell at the quarter's bottom-right corner
    // Row 1, column 6 has x + y >= 0.5 everywhere (it touches the hypotenuse at a corner);
    // row 1, column 5 reaches x + y = 0.4375, inside.
    expect(cells).not.toContain(16 + 6);
    expect(cells).toContain(16 + 5);
  });

  it('holds every interior point and stays within the bounding box (random polygons)', () => {
    const coordinate = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);
    const star = fc
      .record({
        cx: fc.double({ min: 0.2, max: 0.8, noNaN: true }),
        cy: fc.double({ min: 0.2, max: 0.8, noNaN: true }),
        radii: fc.array(fc.double({ min: 0.01, max: 0.3, noNaN: true }), {
          minLength: 3,
          maxLength: 12,
        }),
      })
      .map(({ cx, cy, radii }) =>
        radii.map((r, i) => ({
          x: Math.min(1, Math.max(0, cx + r * Math.cos((2 * Math.PI * i) / radii.length))),
          y: Math.min(1, Math.max(0, cy + r * Math.sin((2 * Math.PI * i) / radii.length))),
        })),
      );
    const triangle = fc.array(fc.record({ x: coordinate, y: coordinate }), {
      minLength: 3,
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.oneof(star, triangle), (polygon) => {
        fc.pre(simplicityProblem(polygon) === undefined && polygonArea(polygon) > 1e-6);
        const cells = new Set(coveredCells(polygon));
        // Every sample point strictly inside the polygon lies in a covered cell.
        for (let i = 0; i < 64; i++) {
          for (let j = 0; j < 32; j++) {
            const p = { x: (i + 0.37) / 64, y: (j + 0.61) / 32 };
            if (inside(polygon, p)) {
              expect(cells).toContain(Math.floor(p.y * 8) * 16 + Math.floor(p.x * 16));
            }
          }
        }
        // No covered cell lies wholly outside the polygon's bounding box.
        const minX = Math.min(...polygon.map((v) => v.x));
        const maxX = Math.max(...polygon.map((v) => v.x));
        for (const cell of cells) {
          const column = cell % 16;
          expect(column / 16).toBeLessThan(maxX);
          expect((column + 1) / 16).toBeGreaterThan(minX);
        }
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});

/** Ray casting; the sample points never lie on an edge in practice. */
function inside(polygon: Vertex[], p: Vertex): boolean {
  let result = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const a = polygon[i]!;
    const b = polygon[j]!;
    if (a.y > p.y !== b.y > p.y && p.x < ((b.x - a.x) * (p.y - a.y)) / (b.y - a.y) + a.x) {
      result = !result;
    }
  }
  return result;
}
