// The tables of the shown result (layout.tables) as real HTML tables, each with its copy and download buttons.
// This only lays the JSON cells out in the DOM; whatever is copied or downloaded is written by py/retto
// (ocr.export with a table_* format), the same code as the CLI's --format csv / xlsx.
import { h } from '../shared/dom.js';

/** What each button asks for: [format, label, what the button does in words (its accessible name's tail)]. */
export const TABLE_ACTIONS = [
  ['table_tsv', 'Copy TSV', 'copy as tab-separated text'],
  ['table_md', 'Copy Markdown', 'copy as a Markdown table'],
  ['table_csv', 'CSV', 'download as CSV'],
  ['table_xlsx', 'XLSX', 'download as an Excel workbook'],
];

export class TablesView {
  /** panel: the section shown only when the result has tables; list: where the tables go.
   *  onAction(format, index): a button was pressed for table `index` of the job's record. */
  constructor({ panel, list, count }, { onAction }) {
    this.els = { panel, list, count };
    this.onAction = onAction;
  }

  /** tables: the shown page's tables; first: the index of its first table among the record's tables (a PDF's
   *  earlier pages' tables come before it), which is how the worker finds the one to export. */
  show(tables = [], first = 0) {
    const { panel, list, count } = this.els;
    panel.hidden = tables.length === 0;
    count.textContent = tables.length ? `(${tables.length})` : '';
    list.replaceChildren(...tables.map((table, i) => this.tableBlock(table, first + i)));
  }

  tableBlock(table, index) {
    const n = index + 1;
    const name = `Table ${n}`;
    // Named "Copy TSV of table 1": the visible label first, so the spoken name contains what is seen.
    const actions = TABLE_ACTIONS.map(([format, label, does]) => h('button', {
      type: 'button', class: 'button small', dataset: { format, table: index }, title: `${name}: ${does}`,
      onclick: () => this.onAction(format, index),
    }, label, h('span', { class: 'visually-hidden' }, ` of table ${n}`)));
    return h('div', { class: 'table-block', dataset: { table: index } },
      h('div', { class: 'table-actions', role: 'group', 'aria-label': `${name} actions` }, ...actions),
      h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': name }, htmlTable(table, name)));
  }
}

/** The cells placed as HTML places them: row by row, a spanning cell once, in its first row and column. */
function htmlTable(table, name) {
  const rows = Array.from({ length: table.rows }, () => []);
  for (const c of table.cells) rows[c.row]?.push(c);
  return h('table', { class: 'result-table' },
    h('caption', {}, `${name}: ${table.rows} rows, ${table.cols} columns`),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.sort((a, b) => a.col - b.col).map((c) => h('td', {
      rowspan: c.row_span > 1 ? c.row_span : null, colspan: c.col_span > 1 ? c.col_span : null,
      dataset: { row: c.row, col: c.col },
    }, c.text))))));
}
