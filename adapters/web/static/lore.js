/*
 * The lorebook editor (LORE-6, LORE-11, LORE-13).
 *   GET  /app/lorebooks?chat=<chat>            -> {lorebooks: [{id, name, entries, editable, persona_book, attached}]}
 *   POST /app/lorebooks (raw JSON / PNG / CHARX) -> {id, name, entries}
 *   GET  /app/lorebooks/<id>                   -> {name, tokens, editable, entries: [...sorted by display name]}
 *   GET  /app/lorebooks/<id>/export?format=sillytavern|ccv3
 *   PUT  /app/lorebooks/<id>/entries/<entry>, POST /app/lorebooks/<id>/entries, DELETE .../<entry>
 *   PUT  /app/chats/<chat>/lorebooks {books}
 * Entries are listed by display name (the comment; never sent to the model), with token counts.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const make = H.make;
  const dlg = $('#lore-dialog');
  const form = $('#lore-entry-form');
  let books = [];
  let current = null;   // the open book
  let editing = null;   // the entry id being edited, '' for a new one

  const chat = () => H.state.session.chat;
  const guest = () => Boolean(H.state.session && H.state.session.guest);

  async function open() {
    dlg.showModal();
    $('#lore-guest').hidden = !guest();
    $('#lore-import-label').hidden = guest();
    await loadBooks();
  }

  async function loadBooks() {
    try {
      const got = await H.api('GET', `/app/lorebooks?chat=${encodeURIComponent(chat())}`);
      books = got.lorebooks;
    } catch (err) {
      H.toast(err.message, 'error');
      books = [];
    }
    const items = books.map((b) => {
      const li = make('li', 'book');
      li.dataset.id = b.id;
      const pick = H.button(b.name || b.id, 'book-open', () => openBook(b.id));
      const meta = make('span', 'hint', `${b.entries} entries`);
      li.append(pick, meta);
      if (b.attached) li.append(make('span', 'tag attached', 'attached'));
      if (b.persona_book) li.append(make('span', 'tag', 'persona'));
      if (current && current.id === b.id) li.dataset.current = 'true';
      return li;
    });
    if (!items.length) items.push(make('li', 'empty', 'No lorebooks yet. Import one.'));
    $('#lore-book-list').replaceChildren(...items);
  }

  async function openBook(id) {
    try {
      current = await H.api('GET', `/app/lorebooks/${encodeURIComponent(id)}`);
    } catch (err) {
      H.toast(err.message, 'error');
      return;
    }
    const info = books.find((b) => b.id === id) || {};
    dlg.dataset.view = 'book';
    $('#lore-book').hidden = false;
    $('#lore-book-name').textContent = current.name || current.id;
    $('#lore-book-tokens').textContent = `${current.tokens.toLocaleString()} tokens`;
    $('#lore-attach').checked = Boolean(info.attached);
    $('#lore-attach').disabled = guest();
    $('#lore-readonly').hidden = current.editable;
    $('#lore-new-entry').hidden = !current.editable;
    const path = `/app/lorebooks/${encodeURIComponent(id)}/export`;
    $('#lore-export-st').href = `${path}?format=sillytavern`;
    $('#lore-export-v3').href = `${path}?format=ccv3`;
    form.hidden = true;
    renderEntries();
    document.querySelectorAll('#lore-book-list .book').forEach((li) => {
      li.dataset.current = String(li.dataset.id === id);
    });
  }

  function renderEntries() {
    const items = current.entries.map((e) => {
      const li = make('li', 'entry');
      li.dataset.id = e.id;
      if (!e.enabled) li.dataset.disabled = 'true';
      const name = H.button(e.name, 'entry-open', () => edit(e));
      const keys = make('span', 'entry-keys', e.constant ? 'constant' : e.keys);
      const tokens = make('span', 'tag tokens', `${e.tokens} tokens`);
      li.append(name, keys, tokens);
      return li;
    });
    if (!items.length) items.push(make('li', 'empty', 'This book has no entries.'));
    $('#lore-entries').replaceChildren(...items);
  }

  const FIELDS = {
    comment: '#entry-comment', keys: '#entry-keys', secondary_keys: '#entry-secondary',
    content: '#entry-content', decorators: '#entry-decorators', priority: '#entry-priority',
    order: '#entry-order', role: '#entry-role',
  };

  function edit(entry) {
    editing = entry ? entry.id : '';
    const e = entry || {
      comment: '', keys: '', secondary_keys: '', content: '', decorators: '', priority: 0, order: 0,
      role: 'system', enabled: true, constant: false, tokens: 0,
    };
    $('#lore-entry-title').textContent = entry ? `Entry: ${entry.name}` : 'New entry';
    for (const [key, sel] of Object.entries(FIELDS)) $(sel).value = e[key] ?? '';
    $('#entry-enabled').checked = e.enabled;
    $('#entry-constant').checked = e.constant;
    $('#entry-tokens').textContent = String(e.tokens);
    for (const el of form.querySelectorAll('input, textarea, select')) el.disabled = !current.editable;
    $('#entry-save').hidden = !current.editable;
    $('#entry-delete').hidden = !current.editable || !entry;
    H.showError($('#entry-error'), null);
    form.hidden = false;
    form.dataset.entry = editing;
    form.scrollIntoView({ block: 'start', behavior: 'smooth' });
    $('#entry-comment').focus({ preventScroll: true });
  }

  async function save(e) {
    e.preventDefault();
    const body = {};
    for (const [key, sel] of Object.entries(FIELDS)) body[key] = $(sel).value;
    body.priority = Number.parseInt(body.priority || '0', 10) || 0;
    body.order = Number.parseInt(body.order || '0', 10) || 0;
    body.enabled = $('#entry-enabled').checked;
    body.constant = $('#entry-constant').checked;
    const base = `/app/lorebooks/${encodeURIComponent(current.id)}/entries`;
    try {
      const saved = editing
        ? await H.api('PUT', `${base}/${encodeURIComponent(editing)}`, body)
        : await H.api('POST', base, body);
      H.toast(`Saved “${saved.entry.name}” (${saved.entry.tokens} tokens).`, 'ok');
      await openBook(current.id);
      await loadBooks();
    } catch (err) {
      H.showError($('#entry-error'), err);
    }
  }

  async function remove() {
    if (!editing) return;
    const name = $('#entry-comment').value || editing;
    if (!(await H.confirm({ title: 'Delete this entry?', text: `“${name}” will be removed from the book.`, ok: 'Delete' }))) {
      return;
    }
    try {
      await H.api('DELETE', `/app/lorebooks/${encodeURIComponent(current.id)}/entries/${encodeURIComponent(editing)}`);
      await openBook(current.id);
      await loadBooks();
    } catch (err) {
      H.toast(err.message, 'error');
    }
  }

  function typeOf(file) {
    const name = file.name.toLowerCase();
    if (name.endsWith('.png')) return 'image/png';
    if (name.endsWith('.charx')) return 'application/zip';
    return file.type || 'application/json';
  }

  async function importFile() {
    const input = $('#lore-file');
    const file = input.files && input.files[0];
    input.value = '';
    if (!file) return;
    const name = file.name.replace(/\.[^.]+$/, '');
    const problem = $('#lore-import-error');
    H.showError(problem, null);
    try {
      const made = await H.api('POST', `/app/lorebooks?name=${encodeURIComponent(name)}`, undefined,
        { raw: await file.arrayBuffer(), type: typeOf(file) });
      // an imported book is attached to this chat at once (issue 16): no box to tick first
      const set = new Set(books.filter((b) => b.attached).map((b) => b.id));
      set.add(made.id);
      await H.api('PUT', `/app/chats/${encodeURIComponent(chat())}/lorebooks`, { books: [...set] });
      H.toast(`Imported “${made.name}” (${made.entries} entries), attached to this chat.`, 'ok');
      await loadBooks();
      await openBook(made.id);
    } catch (err) {
      // shown next to the Import button, inside the sheet (a toast would sit under the dialog)
      H.showError(problem, new Error(`Could not import ${file.name}: ${err.message}`));
    }
  }

  async function attach() {
    const on = $('#lore-attach').checked;
    const set = new Set(books.filter((b) => b.attached).map((b) => b.id));
    if (on) set.add(current.id); else set.delete(current.id);
    try {
      await H.api('PUT', `/app/chats/${encodeURIComponent(chat())}/lorebooks`, { books: [...set] });
      H.toast(on ? `“${current.name}” is attached to this chat.` : `“${current.name}” is detached.`, 'ok');
    } catch (err) {
      $('#lore-attach').checked = !on;
      H.toast(err.message, 'error');
    }
    await loadBooks();
  }

  $('#open-lore').addEventListener('click', open);
  $('#lore-close').addEventListener('click', () => dlg.close());
  $('#lore-back').addEventListener('click', () => { dlg.dataset.view = 'books'; $('#lore-book').hidden = true; });
  $('#lore-file').addEventListener('change', importFile);
  $('#lore-attach').addEventListener('change', attach);
  $('#lore-new-entry').addEventListener('click', () => edit(null));
  $('#entry-cancel').addEventListener('click', () => { form.hidden = true; });
  $('#entry-delete').addEventListener('click', remove);
  form.addEventListener('submit', save);
  H.on('session', () => { current = null; $('#lore-book').hidden = true; dlg.dataset.view = 'books'; });
})();
