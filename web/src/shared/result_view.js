// The result of one image: the picture with its detected boxes drawn over it, and the list of lines, linked
// both ways (hover or focus a line -> its box lights up; click a box -> its line is selected). Used by the
// page and by <retto-ocr>; it only reads the JSON result, it never computes OCR.
import { h, svg } from './dom.js';
import { percent } from './units.js';

export const LOW_SCORE = 0.8; // below this a line is marked "low confidence" (the pipeline drops < 0.5)

export class ResultView {
  /**
   * figure: element that receives the image + overlay; list: an <ol> for the lines.
   * onCopyLine(text) adds a copy button per line when given.
   */
  constructor({ figure, list, onCopyLine = null }) {
    this.figure = figure;
    this.list = list;
    this.onCopyLine = onCopyLine;
    this.polygons = [];
    this.items = [];
    this.hovered = -1;
    this.selected = -1;
  }

  clear() {
    this.figure.replaceChildren();
    this.list.replaceChildren();
    this.polygons = [];
    this.items = [];
    this.hovered = this.selected = -1;
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
    layer.append(overlay);
    stage.append(layer);
    this.figure.append(stage);

    result.lines.forEach((line, i) => {
      const low = line.score < LOW_SCORE;
      // The accessible name starts with the visible text (text, then score) so it contains it (WCAG 2.5.3,
      // axe label-content-name-mismatch); the line number and "low confidence" follow for screen readers.
      const text = h('button', { type: 'button', class: 'line-text', part: 'line-text',
        'aria-label': `${line.text} ${percent(line.score)}, line ${i + 1}, ${low ? 'low confidence' : 'confidence'}` },
      h('span', { class: 'text' }, line.text || '\u00a0'),
      h('span', { class: low ? 'score low' : 'score', part: low ? 'score score-low' : 'score', title: 'confidence' },
        low ? `⚠ ${percent(line.score)}` : percent(line.score)));
      text.addEventListener('pointerenter', () => this.hover(i));
      text.addEventListener('pointerleave', () => this.hover(-1));
      text.addEventListener('focus', () => this.hover(i));
      text.addEventListener('blur', () => this.hover(-1));
      text.addEventListener('click', () => this.select(i, { from: 'line' }));
      const li = h('li', { class: low ? 'line low' : 'line', part: 'line', dataset: { index: i } }, text);
      if (this.onCopyLine) {
        li.append(h('button', { type: 'button', class: 'copy-line', title: 'Copy this line',
          'aria-label': `Copy line ${i + 1}`, onclick: () => this.onCopyLine(line.text) }, 'Copy'));
      }
      this.list.append(li);
      this.items.push(li);
    });
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
    // Bring the other side into view: the list scrolls to the line, the picture to the box.
    if (from === 'box') this.items[i]?.scrollIntoView({ block: 'nearest' });
    if (from === 'line') this.polygons[i]?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }

  mark(i, cls, on) {
    if (i < 0) return;
    this.polygons[i]?.classList.toggle(cls, on);
    this.items[i]?.classList.toggle(cls, on);
    this.items[i]?.querySelector('.line-text')?.setAttribute('aria-pressed', String(this.selected === i));
  }
}
