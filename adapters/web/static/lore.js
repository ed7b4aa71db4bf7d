/*
 * The lorebook editor (LORE-6, LORE-11, LORE-13).
 *   GET  /app/lorebooks?chat=<chat>&persona=<id> -> {lorebooks: [{id, name, entries, editable, persona_book,
 *        attached, read_by_persona}]}   (read_by_persona: the chat's persona's own book, always read)
 *   POST /app/lorebooks (raw JSON / PNG / CHARX) -> {id, name, entries}
 *   GET  /app/lorebooks/<id>                   -> {name, tokens, editable, entries: [...sorted by display name]}
 *   GET  /app/lorebooks/<id>/export?format=sillytavern|ccv3
 *   PUT  /app/lorebooks/<id>/entries/<entry>, POST /app/lorebooks/<id>/entries, DELETE .../<entry>
 *   PUT  /app/lorebooks/<id>/settings {matching, case_sensitive, use_group_scoring}   (LORE-18, LORE-15)
 *   PUT  /app/chats/<chat>/lorebooks {books}
 *   PUT  /app/lorebooks/<id> {name} -> the book;  DELETE /app/lorebooks/<id> -> {deleted, personas}
 * The import report (LORE-21) is shown per book and per entry; the SillyTavern options
 * (timed effects, inclusion groups, recursion, matching: LORE-14..18) are edited per entry.
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
      const persona = (H.state.session.persona || {}).id || 'default';
      const got = await H.api('GET', `/app/lorebooks?chat=${encodeURIComponent(chat())}&persona=${encodeURIComponent(persona)}`);
      books = got.lorebooks;
    } catch (err) {
      H.toast(err.message, 'error');
      books = [];
    }
    const items = books.map((b) => {
      const li = make('li', 'book');
      li.dataset.id = b.id;
      li.dataset.editable = String(Boolean(b.editable));  // yours, not a shared persona's
      const pick = H.button(b.name || b.id, 'book-open', () => openBook(b.id));
      const meta = make('span', 'hint', `${b.entries} entries`);
      li.append(pick, meta);
      if (b.attached || b.read_by_persona) li.append(make('span', 'tag attached', 'attached'));
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
    // the persona's own book is always read: ticked, and not something to detach here
    $('#lore-attach').checked = Boolean(info.attached || info.read_by_persona);
    $('#lore-attach').disabled = guest() || Boolean(info.read_by_persona);
    $('#lore-attach').title = info.read_by_persona ? 'The persona’s own book is always read in its chats.' : '';
    $('#lore-readonly').hidden = current.editable;
    $('#lore-new-entry').hidden = !current.editable;
    $('#lore-rename').hidden = !current.editable;
    $('#lore-delete').hidden = !current.editable;
    const path = `/app/lorebooks/${encodeURIComponent(id)}/export`;
    $('#lore-export-st').href = `${path}?format=sillytavern`;
    $('#lore-export-v3').href = `${path}?format=ccv3`;
    form.hidden = true;
    $('#lore-matching').value = current.matching;
    $('#lore-group-scoring').checked = Boolean(current.use_group_scoring);
    $('#lore-case').checked = Boolean(current.case_sensitive);
    for (const sel of ['#lore-matching', '#lore-group-scoring', '#lore-case']) $(sel).disabled = !current.editable;
    renderReport();
    renderEntries();
    document.querySelectorAll('#lore-book-list .book').forEach((li) => {
      li.dataset.current = String(li.dataset.id === id);
    });
  }

  const issueText = (i) => `${i.field}: ${i.reason}`;

  function renderReport() {
    const report = current.report || [];
    $('#lore-report').hidden = !report.length;
    $('#lore-report-title').textContent = `Import report: ${report.length} thing(s) ignored or not applied`;
    const names = new Map(current.entries.map((e) => [e.id, e.name]));
    $('#lore-report-list').replaceChildren(...report.map((i) => {
      const li = make('li', `issue ${i.code}`, `${names.get(i.entry) || i.entry} — ${issueText(i)}`);
      li.dataset.entry = i.entry;
      li.dataset.code = i.code;
      return li;
    }));
  }

  function renderEntries() {
    const items = current.entries.map((e) => {
      const li = make('li', 'entry');
      li.dataset.id = e.id;
      if (!e.enabled) li.dataset.disabled = 'true';
      const name = H.button(e.name, 'entry-open', () => edit(e));
      const keys = make('span', 'entry-keys', e.constant ? 'constant' : e.keys);
      const tokens = make('span', 'tag tokens', `${e.tokens} tokens`);
      const tags = make('span', 'entry-tags');
      tags.append(tokens);
      if (e.sticky) tags.append(make('span', 'tag timed', `sticky ${e.sticky}`));
      if (e.cooldown) tags.append(make('span', 'tag timed', `cooldown ${e.cooldown}`));
      if (e.delay) tags.append(make('span', 'tag timed', `delay ${e.delay}`));
      if (e.group) tags.append(make('span', 'tag group', `group ${e.group}`));
      if (e.issues && e.issues.length) tags.append(make('span', 'tag issue', `${e.issues.length} ignored`));
      li.append(name, keys, tags);
      return li;
    });
    if (!items.length) items.push(make('li', 'empty', 'This book has no entries.'));
    $('#lore-entries').replaceChildren(...items);
  }

  const FIELDS = {
    comment: '#entry-comment', keys: '#entry-keys', secondary_keys: '#entry-secondary',
    content: '#entry-content', decorators: '#entry-decorators', priority: '#entry-priority',
    order: '#entry-order', role: '#entry-role', selective_logic: '#entry-logic',
    match_whole_words: '#entry-whole', case_sensitive: '#entry-case', group: '#entry-group',
    use_group_scoring: '#entry-group-scoring',
  };
  const NUMBERS = {
    probability: '#entry-probability', sticky: '#entry-sticky', cooldown: '#entry-cooldown',
    delay: '#entry-delay', group_weight: '#entry-group-weight', delay_until_recursion: '#entry-delay-recursion',
  };
  const CHECKS = {
    enabled: '#entry-enabled', constant: '#entry-constant', use_probability: '#entry-use-probability',
    group_override: '#entry-group-override', exclude_recursion: '#entry-exclude-recursion',
    prevent_recursion: '#entry-prevent-recursion',
  };

  function edit(entry) {
    editing = entry ? entry.id : '';
    const e = entry || {
      comment: '', keys: '', secondary_keys: '', content: '', decorators: '', priority: 0, order: 0,
      role: 'system', enabled: true, constant: false, tokens: 0, selective_logic: 'AND_ANY',
      match_whole_words: 'book', case_sensitive: 'book', group: '', use_group_scoring: 'book',
      probability: 100, use_probability: true, sticky: 0, cooldown: 0, delay: 0, group_weight: 100,
      delay_until_recursion: 0, group_override: false, exclude_recursion: false, prevent_recursion: false,
      scan_depth: null, issues: [],
    };
    $('#lore-entry-title').textContent = entry ? `Entry: ${entry.name}` : 'New entry';
    for (const [key, sel] of Object.entries(FIELDS)) $(sel).value = e[key] ?? '';
    // Order is shown as SillyTavern's (lower goes earlier); Hearth stores the opposite sign
    $('#entry-order').value = String(-(Number(e.order) || 0));
    for (const [key, sel] of Object.entries(NUMBERS)) $(sel).value = String(e[key] ?? 0);
    for (const [key, sel] of Object.entries(CHECKS)) $(sel).checked = Boolean(e[key]);
    $('#entry-scan-depth').value = e.scan_depth == null ? '' : String(e.scan_depth);
    const issues = e.issues || [];
    $('#entry-issues').hidden = !issues.length;
    $('#entry-issues').replaceChildren(...issues.map((i) => make('li', `issue ${i.code}`, issueText(i))));
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
    body.order = -(Number.parseInt(body.order || '0', 10) || 0);
    for (const [key, sel] of Object.entries(NUMBERS)) body[key] = Number.parseInt($(sel).value || '0', 10) || 0;
    for (const [key, sel] of Object.entries(CHECKS)) body[key] = $(sel).checked;
    const depth = $('#entry-scan-depth').value.trim();
    if (depth === '') body.clear_scan_depth = true; else body.scan_depth = Number.parseInt(depth, 10) || 0;
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
      const ignored = made.report && made.report.length ? `; ${made.report.length} thing(s) ignored, see the report` : '';
      H.toast(`Imported “${made.name}” (${made.entries} entries), attached to this chat${ignored}.`, made.report && made.report.length ? 'info' : 'ok');
      await loadBooks();
      await openBook(made.id);
    } catch (err) {
      // shown next to the Import button, inside the sheet (a toast would sit under the dialog)
      H.showError(problem, new Error(`Could not import ${file.name}: ${err.message}`));
    }
  }

  async function saveSettings() {
    const body = {
      matching: $('#lore-matching').value,
      case_sensitive: $('#lore-case').checked,
      use_group_scoring: $('#lore-group-scoring').checked,
    };
    try {
      current = await H.api('PUT', `/app/lorebooks/${encodeURIComponent(current.id)}/settings`, body);
      H.toast('Book settings saved.', 'ok');
      renderReport();
      renderEntries();
    } catch (err) {
      H.toast(err.message, 'error');
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
  $('#lore-matching').addEventListener('change', saveSettings);
  $('#lore-group-scoring').addEventListener('change', saveSettings);
  $('#lore-case').addEventListener('change', saveSettings);
  $('#lore-new-entry').addEventListener('click', () => edit(null));
  $('#entry-cancel').addEventListener('click', () => { form.hidden = true; });
  $('#entry-delete').addEventListener('click', remove);
  form.addEventListener('submit', save);

  // ---- renaming and deleting a book of one's own ------------------------------------------
  const renameDlg = $('#book-rename-dialog');
  $('#lore-rename').addEventListener('click', () => {
    $('#book-rename-name').value = current.name || '';
    H.showError($('#book-rename-error'), null);
    renameDlg.showModal();
  });
  $('#book-rename-cancel').addEventListener('click', () => renameDlg.close());
  $('#book-rename-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const got = await H.api('PUT', `/app/lorebooks/${encodeURIComponent(current.id)}`, { name: $('#book-rename-name').value });
      renameDlg.close();
      $('#lore-book-name').textContent = got.name;
      current.name = got.name;
      await loadBooks();
      H.toast(`Lorebook renamed “${got.name}”.`, 'ok');
    } catch (err) {
      H.showError($('#book-rename-error'), err);
    }
  });
  $('#lore-delete').addEventListener('click', async () => {
    const name = current.name || current.id;
    const count = current.entries.length;
    const sure = await H.confirm({
      title: `Delete the lorebook “${name}”?`,
      text: `Its ${count} ${count === 1 ? 'entry is' : 'entries are'} deleted for good. Chats and personas that read it stop using it. `
        + 'No memory is touched: memories are not kept in lorebooks.',
      ok: 'Delete lorebook', cancel: 'Keep it',
    });
    if (!sure) return;
    try {
      await H.api('DELETE', `/app/lorebooks/${encodeURIComponent(current.id)}`);
      current = null;
      dlg.dataset.view = 'books';
      $('#lore-book').hidden = true;
      await loadBooks();
      H.toast(`Lorebook “${name}” deleted.`, 'ok');
    } catch (err) {
      H.toast(err.message, 'error');
    }
  });
  H.on('session', () => { current = null; $('#lore-book').hidden = true; dlg.dataset.view = 'books'; });
})();
