// "Text to read": the page's model-set chooser. Lists the build's sets by label with their download size, shows
// the chosen one's summary, remembers the choice (localStorage), and says when a WebGL-only backend choice
// cannot apply to the set. The default is whatever the build's manifest names (Retto.modelSets()).
import { h } from '../shared/dom.js';
import { backendForSet, modelSetOptionText } from '../shared/model_sets.js';

const STORAGE_KEY = 'retto.models';
// Arrow keys on a closed <select> fire `change` at every step: wait until the choice settles, so walking past
// three sets does not boot three engines.
const SETTLE_MS = 350;

export class ModelSetChoice {
  /** els: {select, summary, note}; onChange(set) when the person picks another set. */
  constructor(els, onChange) {
    this.els = els;
    this.sets = [];
    this.current = null;
    els.select.addEventListener('change', () => {
      this.current = this.sets.find((s) => s.name === els.select.value) ?? this.current;
      try { localStorage.setItem(STORAGE_KEY, this.current.name); } catch { /* storage off: just not remembered */ }
      this.describe();
      clearTimeout(this.settle);
      this.settle = setTimeout(() => onChange(this.current), SETTLE_MS);
    });
  }

  /** Fill the list; the initial choice is ?models=NAME, then the remembered one, then the build's default. */
  load(sets, requested) {
    this.sets = sets;
    let remembered = null;
    try { remembered = localStorage.getItem(STORAGE_KEY); } catch { /* storage off */ }
    const byName = (n) => sets.find((s) => s.name === n);
    this.current = byName(requested) ?? byName(remembered) ?? sets.find((s) => s.default) ?? sets[0];
    this.els.select.replaceChildren(...sets.map((s) => h('option', { value: s.name, title: s.summary },
      modelSetOptionText(s))));
    this.els.select.value = this.current.name;
    this.els.select.disabled = false;
    this.describe();
    return this.current;
  }

  /** The chosen set's summary; and, for a WebGL-only backend it cannot use, what runs instead. */
  describe(backend = this.backend) {
    this.backend = backend;
    this.els.summary.textContent = this.current?.summary ?? '';
    this.els.note.textContent = backendForSet(backend, this.current).note;
  }

  labelOf(name) {
    return this.sets.find((s) => s.name === name)?.label ?? name;
  }
}
