/*
 * A persona's settings: sampling, lengths, the live window, the summary and learn-from-chat
 * switches and the prompt order (slots moved up and down), with "Reset to defaults".
 *   GET    /app/personas/<id>/settings -> {settings, defaults, slots, ranges, editable}
 *   PUT    /app/personas/<id>/settings {temperature, top_p, max_tokens, context_window, window_tokens,
 *                                        summaries, learn_from_chat, prompt_order} -> the same view
 *   DELETE /app/personas/<id>/settings -> the same view, back to the deployment's defaults
 * The dialog is built here; H.openSettings(persona) opens it. Errors show inside the dialog.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const NAMES = {
    persona: 'Persona', pinned_memories: 'Pinned notes', active_memories: 'Notes in use',
    summaries: 'Summaries', lore: 'Lorebook entries', window: 'Recent messages',
    recalled: 'Recalled notes', post_history: 'After-chat instructions',
  };
  const NUMBERS = [
    ['temperature', 'Temperature (blank: the model\'s default)', '0.05'],
    ['top_p', 'Top-p (blank: the model\'s default)', '0.01'],
    ['max_tokens', 'Reply length (tokens)', '1'],
    ['context_window', 'Context size (tokens)', '1'],
    ['window_tokens', 'Recent messages kept raw (tokens)', '1'],
  ];
  let dlg = null;
  let current = null;    // {persona, view, order}

  function field(id) { return dlg.querySelector(`#ps-${id}`); }

  function build() {
    dlg = document.createElement('dialog');
    dlg.id = 'settings-dialog';
    dlg.className = 'sheet';
    dlg.setAttribute('aria-labelledby', 'settings-title');
    const form = H.make('form', 'persona-form');
    form.noValidate = true;
    form.append(H.make('h2', null, 'Settings'));
    form.firstChild.id = 'settings-title';
    for (const [key, label, step] of NUMBERS) {
      const l = H.make('label', null, `${label} `);
      const input = document.createElement('input');
      input.type = 'number';
      input.step = step;
      input.id = `ps-${key}`;
      l.append(input);
      form.append(l);
    }
    for (const [key, label] of [['summaries', 'Summarize what leaves the recent messages'], ['learn_from_chat', 'Learn from chat (save memories)']]) {
      const l = H.make('label', 'check');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = `ps-${key}`;
      l.append(box, ` ${label}`);
      form.append(l);
    }
    form.append(H.make('h3', null, 'Prompt order'),
      H.make('p', 'hint', 'Parts of the prompt, first to last. Anthropic models are sent no temperature or top-p (their API refuses them).'));
    const list = H.make('ol', 'slot-order');
    list.id = 'ps-order';
    const error = H.make('p', 'form-error');
    error.id = 'ps-error';
    error.setAttribute('role', 'alert');
    error.hidden = true;
    const row = H.make('div', 'row wrap');
    row.append(
      H.button('Save', 'primary', save),
      H.button('Reset to defaults', null, reset),
      H.button('Close', null, () => dlg.close()));
    row.children[0].id = 'ps-save';
    row.children[1].id = 'ps-reset';
    form.append(list, error, row);
    form.addEventListener('submit', (e) => { e.preventDefault(); save(); });
    dlg.append(form);
    document.body.append(dlg);
  }

  function renderOrder() {
    const items = current.order.map((slot, i) => {
      const li = H.make('li', 'slot-item');
      li.dataset.slot = slot;
      const up = H.button('↑', 'slot-up', () => move(i, -1));
      const down = H.button('↓', 'slot-down', () => move(i, 1));
      up.disabled = i === 0 || !current.view.editable;
      down.disabled = i === current.order.length - 1 || !current.view.editable;
      up.setAttribute('aria-label', `Move ${NAMES[slot] || slot} up`);
      down.setAttribute('aria-label', `Move ${NAMES[slot] || slot} down`);
      li.append(H.make('span', 'slot-name', NAMES[slot] || slot), up, down);
      return li;
    });
    field('order').replaceChildren(...items);
  }

  function move(i, by) {
    const order = current.order;
    [order[i], order[i + by]] = [order[i + by], order[i]];
    renderOrder();
    field('order').querySelector(`[data-slot="${order[i + by]}"] .${by < 0 ? 'slot-up' : 'slot-down'}`)?.focus();
  }

  function show(view) {
    current.view = view;
    const s = view.settings;
    for (const [key] of NUMBERS) {
      const input = field(key);
      input.value = s[key] == null ? '' : String(s[key]);
      input.min = view.ranges[key][0];
      input.max = view.ranges[key][1];
      input.disabled = !view.editable;
    }
    field('summaries').checked = s.summaries;
    field('learn_from_chat').checked = s.learn_from_chat;
    current.order = [...s.prompt_order];
    renderOrder();
    dlg.querySelector('#ps-save').hidden = !view.editable;
    dlg.querySelector('#ps-reset').hidden = !view.editable;
  }

  function chosen() {
    const out = { ...current.view.settings };
    for (const [key] of NUMBERS) {
      const raw = field(key).value.trim();
      out[key] = raw === '' ? (key === 'temperature' || key === 'top_p' || key === 'window_tokens' ? null : current.view.defaults[key]) : Number(raw);
    }
    out.summaries = field('summaries').checked;
    out.learn_from_chat = field('learn_from_chat').checked;
    out.prompt_order = current.order;
    return out;
  }

  const errorBox = () => dlg.querySelector('#ps-error');

  async function save() {
    H.showError(errorBox(), null);
    try {
      show(await H.api('PUT', `/app/personas/${encodeURIComponent(current.persona.id)}/settings`, chosen()));
      H.toast('Settings saved; the next reply uses them.');
    } catch (e) {
      H.showError(errorBox(), e);
    }
  }

  async function reset() {
    H.showError(errorBox(), null);
    try {
      show(await H.api('DELETE', `/app/personas/${encodeURIComponent(current.persona.id)}/settings`));
      H.toast('Settings are back to the defaults.');
    } catch (e) {
      H.showError(errorBox(), e);
    }
  }

  H.openSettings = async (persona) => {
    if (!dlg) build();
    current = { persona, view: null, order: [] };
    H.showError(errorBox(), null);
    dlg.querySelector('#settings-title').textContent = `Settings: ${persona.name}`;
    dlg.showModal();
    try {
      show(await H.api('GET', `/app/personas/${encodeURIComponent(persona.id)}/settings`));
    } catch (e) {
      H.showError(errorBox(), e);
    }
  };
})();
