// The result of one image: the picture with its detected boxes drawn over it, and the list of lines, linked
// both ways (hover or focus a line -> its box lights up; click a box -> its line is selected). Used by the
// page and by <retto-ocr>; it only reads the JSON result, it never computes OCR.
import { h, svg } from './dom.js';
import { percent } from './units.js';

export const LOW_SCORE = 0.8; // below this a line is marked "low confidence" (the pipeline drops < 0.5)

export class ResultView {
  /**
   * figure: element that receives the image + overlay; list: an <ol> for the lines.
   * onCopyLine(text): how a line is copied (with the host's feedback); without it the view copies by itself.
   */
  constructor({ figure, list, onCopyLine = null }) {
    this.figure = figure;
    this.list = list;
    this.onCopyLine = onCopyLine;
    this.polygons = [];
    this.items = [];
    this.hovered = -1;
    this.selected = -1;
    this.focused = 0; // the line that holds the list's tab stop
    this.lines = [];
    list.setAttribute('role', 'listbox');
    if (!list.hasAttribute('aria-label') && !list.hasAttribute('aria-labelledby')) list.setAttribute('aria-label', 'Text lines');
    list.addEventListener('keydown', (ev) => this.onKey(ev));
    list.addEventListener('focusout', (ev) => { if (!list.contains(ev.relatedTarget)) this.hover(-1); });
  }

  clear() {
    this.figure.replaceChildren();
    this.list.replaceChildren();
    this.polygons = [];
    this.items = [];
    this.hovered = this.selected = -1;
    this.focused = 0;
    this.lines = [];
  }

  /** imageUrl: an object URL or URL of the image (shown with its EXIF orientation applied, like the pipeline
   *  reads it); result: the OCR JSON. Boxes are in the oriented image's pixels, so the overlay's viewBox is
   *  the result's width x height and the image and overlay share one layer of that aspect ratio. On a turned
   *  page (page_angle: the clockwise turn the pipeline undid) that layer is rotated back by -page_angle, so
   *  the text stands upright and the boxes turn with it; the stage takes the upright page's aspect ratio. */
  show({ imageUrl, name, result }) {
    this.clear();
    const { width, height } = result.image;
    const angle = [90, 180, 270].includes(result.page_angle) ? result.page_angle : 0;
    const quarter = angle % 180 !== 0;
    const [uw, uh] = quarter ? [height, width] : [width, height]; // the upright page's size
    const n = result.lines.length;
    const stage = h('div', { class: 'stage', part: 'stage', dataset: { pageAngle: angle } });
    stage.style.aspectRatio = `${uw} / ${uh}`;
    stage.style.setProperty('--ar', String(uw / uh));
    const layer = h('div', { class: 'page-layer' },
      h('img', { class: 'picture', part: 'image', src: imageUrl, alt: `${name}: ${n} text line${n === 1 ? '' : 's'} found`,
        draggable: 'false' }));
    if (angle) {
      // The layer keeps the image's own size (as a share of the upright stage), centred, then turns about its
      // centre: percentages, so it follows the stage when the page resizes.
      const w = (100 * width) / uw;
      const hgt = (100 * height) / uh;
      Object.assign(layer.style, { width: `${w}%`, height: `${hgt}%`, left: `${(100 - w) / 2}%`,
        top: `${(100 - hgt) / 2}%`, transform: `rotate(${-angle}deg)` });
    }
    const overlay = svg('svg', { class: 'boxes', part: 'boxes', viewBox: `0 0 ${width} ${height}`,
      preserveAspectRatio: 'none', 'aria-hidden': 'true' });
    result.lines.forEach((line, i) => {
      const poly = svg('polygon', {
        class: line.score < LOW_SCORE ? 'box low' : 'box',
        part: line.score < LOW_SCORE ? 'box box-low' : 'box',
        points: line.box.map(([x, y]) => `${x},${y}`).join(' '),
        dataset: { index: i },
      }, svg('title', {}, `${line.text} (${percent(line.score)})`));
      poly.addEventListener('pointerenter', () => this.hover(i));
      poly.addEventListener('pointerleave', () => this.hover(-1));
      poly.addEventListener('click', () => this.select(i, { from: 'box' }));
      overlay.append(poly);
      this.polygons.push(poly);
    });
    // Tables (layout.tables): each table's outline and its cells' boxes, drawn under nothing (no pointer events:
    // the line boxes stay clickable through them).
    (result.tables ?? []).forEach((table, t) => {
      const poly = (box, cls) => svg('polygon', { class: cls, part: cls, points: box.map(([x, y]) => `${x},${y}`).join(' ') });
      overlay.append(svg('g', { class: 'table-grid', part: 'table-grid', dataset: { table: t } },
        poly(table.box, 'table-box'), ...table.cells.map((c) => poly(c.box, 'table-cell'))));
    });
    layer.append(overlay);
    stage.append(layer);
    this.figure.append(stage);

    // The lines: one listbox with a single tab stop (roving tabindex). Each option is named by its content
    // (text, score, "low confidence" for screen readers), so the name contains what is seen (WCAG 2.5.3).
    result.lines.forEach((line, i) => {
      const low = line.score < LOW_SCORE;
      const li = h('li', { class: low ? 'line low' : 'line', part: 'line', role: 'option',
        tabindex: '-1', 'aria-selected': 'false', dataset: { index: i } },
      h('span', { class: 'text', part: 'line-text' }, line.text || '\u00a0'),
      h('span', { class: low ? 'score low' : 'score', part: low ? 'score score-low' : 'score' },
        low ? h('span', { 'aria-hidden': 'true' }, '⚠ ') : '', percent(line.score),
        low ? h('span', { class: 'line-sr' }, ', low confidence') : ''),
      // A pointer shortcut; the keyboard copies with Enter or Ctrl/⌘+C on the focused line.
      h('span', { class: 'copy-line', 'aria-hidden': 'true', title: 'Copy this line' }, 'Copy'));
      li.addEventListener('pointerenter', () => this.hover(i));
      li.addEventListener('pointerleave', () => this.hover(this.list.contains(this.list.getRootNode().activeElement) ? this.focused : -1));
      li.addEventListener('focus', () => { // however it got there (Tab, click, a screen reader): it holds the tab stop
        if (this.focused !== i) this.moveTo(i, { focus: false });
        this.hover(i);
      });
      li.addEventListener('click', (ev) => {
        this.moveTo(i, { focus: false });
        if (ev.target.closest('.copy-line')) this.copy(i);
        else this.select(i, { from: 'line' });
      });
      this.list.append(li);
      this.items.push(li);
    });
    this.lines = result.lines;
    if (this.items.length) this.items[0].tabIndex = 0;
  }

  /** Arrow keys, Home/End and PageUp/PageDown move the focus; Enter or Ctrl/⌘+C copies; Space selects. */
  onKey(ev) {
    const n = this.items.length;
    if (!n || !ev.target.closest?.('[role=option]')) return;
    const i = this.focused;
    // A page: as many lines as the list shows (by their mean height), so PageDown then PageUp comes back.
    const page = Math.max(1, Math.floor((this.list.clientHeight * n) / (this.list.scrollHeight || 1)) - 1);
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: n - 1, PageDown: i + page, PageUp: i - page }[ev.key];
    // Ctrl/⌘+C copies the line unless the person selected text in the list (then the browser copies that).
    const sel = getSelection();
    const copyKey = (ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 'c'
      && !(sel && !sel.isCollapsed && this.list.contains(sel.anchorNode));
    if (to !== undefined && !ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      this.moveTo(Math.max(0, Math.min(n - 1, to)));
    } else if (ev.key === 'Enter' || copyKey) {
      this.copy(i);
    } else if (ev.key === ' ') {
      this.select(i, { from: 'line' });
    } else {
      return;
    }
    ev.preventDefault();
  }

  /** The roving tab stop: line i becomes the list's one focusable line (and gets the focus). */
  moveTo(i, { focus = true } = {}) {
    this.items[this.focused]?.setAttribute('tabindex', '-1');
    this.focused = i;
    const li = this.items[i];
    li.tabIndex = 0;
    if (focus) {
      li.focus({ preventScroll: true });
      li.scrollIntoView({ block: 'nearest' }); // the line, not its box: on a phone the picture is above the list
    }
  }

  async copy(i) {
    const text = this.lines[i]?.text ?? '';
    if (this.onCopyLine) return this.onCopyLine(text);
    // Without a host callback (the component): the clipboard, and a short "Copied" on the line itself.
    const ok = await navigator.clipboard?.writeText(text).then(() => true, () => false);
    const li = this.items[i];
    li.dataset.copied = ok ? 'Copied' : 'Copy blocked';
    setTimeout(() => delete li.dataset.copied, 1500);
  }

  set boxesVisible(on) {
    this.figure.classList.toggle('no-boxes', !on);
  }

  hover(i) {
    this.mark(this.hovered, 'hover', false);
    this.hovered = i;
    this.mark(i, 'hover', true);
  }

  select(i, { from } = {}) {
    this.mark(this.selected, 'selected', false);
    this.selected = this.selected === i ? -1 : i; // a second click unselects
    this.mark(this.selected, 'selected', true);
    if (this.selected < 0) return;
    if (from === 'box') this.moveTo(i, { focus: false }); // Tab into the list lands on the chosen line
    // Bring the other side into view: the list scrolls to the line, the picture to the box.
    if (from === 'box') this.items[i]?.scrollIntoView({ block: 'nearest' });
    if (from === 'line') this.polygons[i]?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }

  mark(i, cls, on) {
    if (i < 0) return;
    this.polygons[i]?.classList.toggle(cls, on);
    this.items[i]?.classList.toggle(cls, on);
    this.items[i]?.setAttribute('aria-selected', String(this.selected === i));
  }
}
