/**
 * Zone polygons in frame coordinates: x and y in [0, 1], (0, 0) the top-left corner, and the
 * 16x8 object-location grid over the same frame (cell = row * 16 + column, 0 top-left).
 */

export interface Vertex {
  x: number;
  y: number;
}

/** The axis-aligned rectangle from (x0, y0) to (x1, y1), clockwise from its top-left corner. */
export const rectangle = (x0: number, y0: number, x1: number, y1: number): Vertex[] => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];

export const GRID_COLUMNS = 16;
export const GRID_ROWS = 8;
export const GRID_CELLS = GRID_COLUMNS * GRID_ROWS;

/**
 * The least area a zone must enclose, as a fraction of the frame (about two pixels of a 1080p
 * frame): a polygon below it is degenerate, a line or a point drawn by accident.
 */
export const MIN_ZONE_AREA = 1e-6;

/** Twice the signed area of the triangle o, a, b: > 0 counter-clockwise in x-right, y-up axes. */
const cross = (o: Vertex, a: Vertex, b: Vertex) =>
  (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);

const sign = (value: number) => (value > 0 ? 1 : value < 0 ? -1 : 0);

/** Whether q, known to be collinear with p and r, lies on the closed segment p..r. */
const onSegment = (p: Vertex, q: Vertex, r: Vertex) =>
  Math.min(p.x, r.x) <= q.x &&
  q.x <= Math.max(p.x, r.x) &&
  Math.min(p.y, r.y) <= q.y &&
  q.y <= Math.max(p.y, r.y);

/** Whether the closed segments a..b and c..d share at least one point (touching counts). */
export function segmentsIntersect(a: Vertex, b: Vertex, c: Vertex, d: Vertex): boolean {
  const d1 = sign(cross(c, d, a));
  const d2 = sign(cross(c, d, b));
  const d3 = sign(cross(a, b, c));
  const d4 = sign(cross(a, b, d));
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (
    (d1 === 0 && onSegment(c, a, d)) ||
    (d2 === 0 && onSegment(c, b, d)) ||
    (d3 === 0 && onSegment(a, c, b)) ||
    (d4 === 0 && onSegment(a, d, b))
  );
}

/** The polygon's area (shoelace formula), always >= 0. */
export function polygonArea(polygon: readonly Vertex[]): number {
  let twice = 0;
  for (let i = 0; i < polygon.length; i++) {
    const a = polygon[i]!;
    const b = polygon[(i + 1) % polygon.length]!;
    twice += a.x * b.y - b.x * a.y;
  }
  return Math.abs(twice) / 2;
}

/** Why a polygon is not simple: which vertices or edges are at fault. */
export type SimplicityProblem =
  | { kind: 'repeated_vertex'; vertex: number }
  | { kind: 'edges_overlap'; edges: [number, number] }
  | { kind: 'edges_cross'; edges: [number, number] };

/**
 * The first reason the closed polygon (edge i runs from vertex i to vertex i + 1, the last back
 * to the first) is not simple, or undefined if it is: two consecutive vertices coincide, two
 * consecutive edges fold back onto each other, or two non-consecutive edges share a point
 * (crossing, touching, or a vertex visited twice).
 */
export function simplicityProblem(polygon: readonly Vertex[]): SimplicityProblem | undefined {
  const n = polygon.length;
  const at = (i: number) => polygon[i % n]!;
  for (let i = 0; i < n; i++) {
    const a = at(i);
    const b = at(i + 1);
    if (a.x === b.x && a.y === b.y) return { kind: 'repeated_vertex', vertex: (i + 1) % n };
  }
  for (let i = 0; i < n; i++) {
    // Consecutive edges a..b and b..c share b; they overlap only if c turns straight back.
    const [a, b, c] = [at(i), at(i + 1), at(i + 2)];
    const backwards = (b.x - a.x) * (c.x - b.x) + (b.y - a.y) * (c.y - b.y) < 0;
    if (cross(a, b, c) === 0 && backwards)
      return { kind: 'edges_overlap', edges: [i, (i + 1) % n] };
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue; // the last edge and the first are consecutive
      if (segmentsIntersect(at(i), at(i + 1), at(j), at(j + 1))) {
        return { kind: 'edges_cross', edges: [i, j] };
      }
    }
  }
  return undefined;
}

/** The part of `polygon` inside the axis-aligned box (Sutherland-Hodgman; the box is convex). */
function clipToBox(
  polygon: readonly Vertex[],
  left: number,
  top: number,
  right: number,
  bottom: number,
): Vertex[] {
  type Edge = { inside: (v: Vertex) => boolean; cut: (a: Vertex, b: Vertex) => Vertex };
  const atX = (x: number) => (a: Vertex, b: Vertex) => ({
    x,
    y: a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x),
  });
  const atY = (y: number) => (a: Vertex, b: Vertex) => ({
    x: a.x + ((b.x - a.x) * (y - a.y)) / (b.y - a.y),
    y,
  });
  const edges: Edge[] = [
    { inside: (v) => v.x >= left, cut: atX(left) },
    { inside: (v) => v.x <= right, cut: atX(right) },
    { inside: (v) => v.y >= top, cut: atY(top) },
    { inside: (v) => v.y <= bottom, cut: atY(bottom) },
  ];
  let output: Vertex[] = [...polygon];
  for (const edge of edges) {
    const input = output;
    output = [];
    for (let i = 0; i < input.length; i++) {
      const current = input[i]!;
      const previous = input[(i + input.length - 1) % input.length]!;
      if (edge.inside(current)) {
        if (!edge.inside(previous)) output.push(edge.cut(previous, current));
        output.push(current);
      } else if (edge.inside(previous)) {
        output.push(edge.cut(previous, current));
      }
    }
    if (output.length === 0) break;
  }
  return output;
}

/**
 * Below this overlap (as a fraction of the frame; a cell is 1/128 of it) a cell only touches the
 * polygon's boundary: the difference is rounding, not area.
 */
const TOUCH_AREA = 1e-12;

/**
 * The grid cells (0..127, ascending) that the simple polygon overlaps with positive area. A cell
 * the polygon only touches along an edge or at a corner is not covered; a cell covered by a sliver
 * is. So every object cell that a point of the zone's interior lies in is included.
 */
export function coveredCells(polygon: readonly Vertex[]): number[] {
  const xs = polygon.map((v) => v.x);
  const ys = polygon.map((v) => v.y);
  const firstColumn = Math.max(0, Math.floor(Math.min(...xs) * GRID_COLUMNS) - 1);
  const lastColumn = Math.min(GRID_COLUMNS - 1, Math.floor(Math.max(...xs) * GRID_COLUMNS));
  const firstRow = Math.max(0, Math.floor(Math.min(...ys) * GRID_ROWS) - 1);
  const lastRow = Math.min(GRID_ROWS - 1, Math.floor(Math.max(...ys) * GRID_ROWS));
  const cells: number[] = [];
  for (let row = firstRow; row <= lastRow; row++) {
    for (let column = firstColumn; column <= lastColumn; column++) {
      const clipped = clipToBox(
        polygon,
        column / GRID_COLUMNS,
        row / GRID_ROWS,
        (column + 1) / GRID_COLUMNS,
        (row + 1) / GRID_ROWS,
      );
      if (clipped.length >= 3 && polygonArea(clipped) > TOUCH_AREA) {
        cells.push(row * GRID_COLUMNS + column);
      }
    }
  }
  return cells;
}
