/**
 * The zone editor: polygons drawn in an SVG over the frame (viewBox 0..1), corners draggable with
 * a pointer, and the same coordinates as number inputs for the keyboard. `saveZones` stores them.
 */
import { ApiError, request } from './api.ts';
import { SaveZones } from './documents.ts';
import { $, h, s } from './dom.ts';

export interface Vertex {
  x: number;
  y: number;
}
export interface Zone {
  id: string;
  name: string;
  color: string;
  vertices: Vertex[];
}

const palette = ['#ff8800', '#2b8cff', '#22aa55', '#cc33aa', '#e0c000'];
const round = (n: number) => Math.round(Math.min(1, Math.max(0, n)) * 1000) / 1000;

export class ZoneEditor {
  private zones: Zone[] = [];
  private accessoryId: string | undefined;
  private dirty = false;
  private cells: number[] = [];
  private readonly svg = $<HTMLElement>('overlay') as unknown as SVGSVGElement;
  private readonly forms = $<HTMLDivElement>('zones');
  private readonly status = $<HTMLSpanElement>('zones-status');

  constructor() {
    $<HTMLButtonElement>('add-zone').addEventListener('click', () => this.addZone());
    $<HTMLButtonElement>('save-zones').addEventListener('click', () => void this.save());
  }

  /** Zones as the service has them (initial load, or a zones_saved event). */
  load(accessoryId: string, zones: Zone[], fromEvent = false): void {
    if (fromEvent && this.dirty && accessoryId === this.accessoryId) {
      this.setStatus('Zones were saved elsewhere; saving here replaces them.');
      return;
    }
    this.accessoryId = accessoryId;
    this.zones = structuredClone(zones);
    this.dirty = false;
    this.renderForms();
    this.renderOverlay();
    this.setStatus(fromEvent ? 'Zones updated' : '');
  }

  /** The accessory whose zones are shown (none on the all-cameras timeline until a pick). */
  get shown(): string | undefined {
    return this.accessoryId;
  }

  /** No accessory's zones: the all-cameras timeline before an activity is selected. */
  clear(): void {
    this.accessoryId = undefined;
    this.zones = [];
    this.dirty = false;
    this.renderForms();
    this.renderOverlay();
    this.setStatus("Select an activity to see its camera's zones.");
  }

  /** The selected activity's object locations, drawn as grid cells. */
  showCells(cells: number[]): void {
    this.cells = cells;
    this.renderOverlay();
  }

  private setStatus(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('error-text', error);
  }

  private changed(): void {
    this.dirty = true;
    this.setStatus('Unsaved changes');
    this.renderOverlay();
  }

  private addZone(): void {
    if (!this.accessoryId) return;
    const used = new Set(this.zones.map((z) => z.id));
    const id = ['z1', 'z2', 'z3', 'z4', 'z5'].find((z) => !used.has(z));
    if (!id) return this.setStatus('At most 5 zones', true);
    const n = this.zones.length;
    const o = 0.1 + 0.08 * n;
    this.zones.push({
      id,
      name: `Zone ${id.slice(1)}`,
      color: palette[n % palette.length]!,
      vertices: [
        { x: round(o), y: round(o) },
        { x: round(o + 0.3), y: round(o) },
        { x: round(o + 0.3), y: round(o + 0.3) },
        { x: round(o), y: round(o + 0.3) },
      ],
    });
    this.renderForms();
    this.changed();
  }

  private async save(): Promise<void> {
    if (!this.accessoryId) return;
    this.setStatus('Saving…');
    try {
      const { saveZones } = await request(SaveZones, {
        accessoryId: this.accessoryId,
        zones: this.zones.map(({ id, name, color, vertices }) => ({
          id,
          name,
          color,
          vertices: vertices.map(({ x, y }) => ({ x, y })),
        })),
      });
      this.zones = structuredClone(saveZones.zones);
      this.dirty = false;
      this.renderForms();
      this.renderOverlay();
      this.setStatus('Saved');
    } catch (err) {
      this.setStatus(err instanceof ApiError ? err.describe() : String(err), true);
    }
  }

  private renderForms(): void {
    this.forms.replaceChildren(
      ...this.zones.map((zone, zi) => {
        const name = h('input', { id: `zone-${zi}-name`, value: zone.name, maxlength: 64 });
        name.addEventListener('input', () => {
          zone.name = name.value;
          this.changed();
        });
        const color = h('input', { id: `zone-${zi}-color`, type: 'color', value: zone.color });
        color.addEventListener('input', () => {
          zone.color = color.value;
          this.changed();
        });
        const remove = h('button', { type: 'button', text: `Remove ${zone.id}` });
        remove.addEventListener('click', () => {
          this.zones.splice(zi, 1);
          this.renderForms();
          this.changed();
        });
        const addVertex = h('button', { type: 'button', text: 'Add corner' });
        addVertex.addEventListener('click', () => {
          const a = zone.vertices[zone.vertices.length - 1]!;
          const b = zone.vertices[0]!;
          zone.vertices.push({ x: round((a.x + b.x) / 2), y: round((a.y + b.y) / 2) });
          this.renderForms();
          this.changed();
        });
        const rows = zone.vertices.map((v, vi) => {
          const input = (axis: 'x' | 'y') => {
            const el = h('input', {
              type: 'number',
              min: 0,
              max: 1,
              step: 0.001,
              value: v[axis],
              id: `zone-${zi}-v${vi}-${axis}`,
              'data-vertex': `${zi}.${vi}.${axis}`,
              'aria-label': `${zone.id} corner ${vi + 1} ${axis}`,
            });
            el.addEventListener('input', () => {
              if (el.value !== '' && Number.isFinite(el.valueAsNumber)) {
                v[axis] = el.valueAsNumber;
                this.changed();
              }
            });
            return el;
          };
          const drop = h('button', {
            type: 'button',
            text: '×',
            'aria-label': `Remove ${zone.id} corner ${vi + 1}`,
            disabled: zone.vertices.length <= 3,
          });
          drop.addEventListener('click', () => {
            zone.vertices.splice(vi, 1);
            this.renderForms();
            this.changed();
          });
          return h('li', {}, input('x'), input('y'), drop);
        });
        // A CSSOM property, not a style attribute: the page's CSP has no 'unsafe-inline'.
        const swatch = h('span', { class: 'swatch' });
        swatch.style.background = zone.color;
        return h(
          'fieldset',
          { class: 'zone' },
          h('legend', {}, swatch, zone.id),
          h('label', { for: name.id, text: 'Name' }),
          name,
          h('label', { for: color.id, text: 'Color' }),
          color,
          h('ol', { class: 'vertices' }, ...rows),
          h('div', { class: 'row' }, addVertex, remove),
        );
      }),
    );
    if (this.zones.length === 0) this.forms.append(h('p', { class: 'hint', text: 'No zones.' }));
  }

  private renderOverlay(): void {
    const nodes: SVGElement[] = [];
    for (const cell of this.cells) {
      nodes.push(
        s('rect', {
          class: 'cell',
          x: (cell % 16) / 16,
          y: Math.floor(cell / 16) / 8,
          width: 1 / 16,
          height: 1 / 8,
        }),
      );
    }
    this.zones.forEach((zone, zi) => {
      nodes.push(
        s('polygon', {
          class: 'zone-shape',
          points: zone.vertices.map((v) => `${v.x},${v.y}`).join(' '),
          fill: zone.color,
          stroke: zone.color,
        }),
      );
      zone.vertices.forEach((v, vi) => {
        const handle = s('ellipse', {
          class: 'handle',
          cx: v.x,
          cy: v.y,
          rx: 0.016,
          ry: 0.021,
          stroke: zone.color,
          'data-handle': `${zi}.${vi}`,
        });
        handle.addEventListener('pointerdown', (e) => this.drag(e, v, zi, vi));
        nodes.push(handle);
      });
    });
    this.svg.replaceChildren(...nodes);
  }

  private drag(start: PointerEvent, v: Vertex, zi: number, vi: number): void {
    start.preventDefault();
    // renderOverlay replaces the handle while it moves: follow the pointer on the window.
    const move = (e: PointerEvent) => {
      const box = this.svg.getBoundingClientRect();
      v.x = round((e.clientX - box.left) / box.width);
      v.y = round((e.clientY - box.top) / box.height);
      for (const axis of ['x', 'y'] as const) {
        const input = this.forms.querySelector<HTMLInputElement>(
          `[data-vertex="${zi}.${vi}.${axis}"]`,
        );
        if (input) input.value = String(v[axis]);
      }
      this.changed();
    };
    const end = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', end);
      window.removeEventListener('pointercancel', end);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
  }
}
