/*
 * The memory side panel (MEM-3..9, DEC-6..12): what the persona remembers in this chat.
 *   GET    /app/chats/<chat>/memories?persona=   -> {lists: [{list, title, memories}], limits, decay, dormant_after}
 *   POST   /app/chats/<chat>/memories {list, text, pinned, persona} -> {memory, forgotten}
 *   (GET takes ?q= too: only memories holding every word of it, case and accents ignored)
 *   PATCH  /app/memories/<id> {text?, pinned?};  DELETE /app/memories/<id>
 *   POST   /app/memories/<id>/restore   (Undo Forget: the toast's button, for 10 s)
 *   POST   /app/chats/<chat>/memories/clear {list, persona, pinned_confirmed}
 *   POST   /app/chats/<chat>/memories/compose {list, description, persona}           (MEM-6c)
 *   POST   /app/chats/<chat>/memories/from-dialogue {list, messages, mode, texts?}  (MEM-6d)
 *   PUT    /app/chats/<chat>/memory-notices {level: off|brief|full}                 (DEC-11)
 *   GET|PUT /app/chats/<chat>/settings {memory: on|off}  (memory-off chats, MEM-8; the menu's toggle)
 * The panel shows "Deep memory: Active" with one line when the deep pass applies (DEEP-1..4).
 * Lists show pinned first, then newest; each entry shows active/dormant with its unused-day
 * counter and a "recent" mark, and why it is in play: the last time a reply used it and the start
 * of the message that reply answered. The panel refreshes after every reply (model saves, MEM-7
 * rollbacks).
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const make = H.make;
  const panel = $('#memory-panel');
  const opener = $('#open-memories');
  const DIALOGUE_MAX = 20;
  const UNDO_MS = 10000;
  let data = null;

  // the search box, above the lists: the server filters (the visitor's own lists only)
  const search = make('input', 'mem-search');
  search.type = 'search';
  search.id = 'memory-search';
  search.placeholder = 'Search memories';
  search.setAttribute('aria-label', 'Search memories');
  let searchTimer = 0;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(refresh, 250);
  });
  $('#memory-lists').before(search);

  const session = () => H.state.session;
  const personaId = () => (session().persona || {}).id || 'default';
  const base = () => `/app/chats/${encodeURIComponent(session().chat)}/memories`;
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

  function setOpen(open) {
    panel.hidden = !open;
    opener.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('panel-open', open);
    if (open) refresh();
  }

  async function refresh() {
    const s = session();
    if (!s || panel.hidden) return;
    $('#memory-guest').hidden = !s.guest;
    $('#memory-body').hidden = Boolean(s.guest);
    if (s.guest) return;
    try {
      const q = search.value.trim();
      const query = `persona=${encodeURIComponent(personaId())}${q ? `&q=${encodeURIComponent(q)}` : ''}`;
      data = await H.api('GET', `${base()}?${query}`);
      panel.dataset.query = q;
      $('#memory-lists').replaceChildren(...data.lists.map(renderList));
      $('#memory-notices').value = data.notices || 'brief';
      const deep = data.deep_memory || { active: false, note: '' };
      $('#deep-memory').hidden = !deep.active;
      $('#deep-memory-note').textContent = deep.active ? deep.note : '';
      $('#memory-off-note').hidden = data.memory !== 'off';
      panel.dataset.loaded = 'true';
    } catch (err) {
      $('#memory-lists').replaceChildren(make('p', 'form-error', err.message));
    }
  }

  // ---- rendering -----------------------------------------------------------------------
  function renderList(list) {
    const section = make('section', 'mem-list');
    section.dataset.list = list.list;
    const head = make('header', 'mem-list-head');
    const pinned = list.memories.filter((m) => m.pinned).length;
    const count = `${list.memories.length - pinned} / ${data.limits.unpinned} · ${pinned} pinned`;
    head.append(make('h3', null, list.title), make('span', 'count', count));
    if (list.memories.length) head.append(H.button('Clear all', 'mem-clear', () => clearAll(list)));
    section.append(head);
    if (!list.memories.length) {
      section.append(make('p', 'empty', search.value.trim() ? 'No match.' : 'Nothing here yet.'));
      return section;
    }
    const items = make('ul', 'mem-items');
    items.append(...list.memories.map(renderItem));
    section.append(items);
    return section;
  }

  function tag(text, cls, title) {
    const el = make('span', `tag ${cls}`, text);
    if (title) el.title = title;
    return el;
  }

  function stateTag(m) {
    if (m.pinned) return tag('pinned', 'pinned', 'Always sent with every reply; never goes dormant');
    if (!data.decay) return tag('active', 'active', 'Decay is off: every memory stays active');
    const days = m.unused_days ? `not used for ${plural(m.unused_days, 'chat day', 'chat days')}` : 'used today';
    if (m.state === 'dormant') {
      return tag(`dormant · ${days}`, 'dormant', 'Kept and searchable; comes back when the talk touches it');
    }
    return tag(`active · ${days}`, 'active', `Goes dormant after ${data.dormant_after} chat days unused`);
  }

  function renderItem(m) {
    const li = make('li', 'mem');
    li.dataset.id = m.id;
    li.dataset.pinned = String(m.pinned);
    li.dataset.state = m.pinned ? 'pinned' : m.state;
    const meta = make('div', 'mem-meta');
    meta.append(stateTag(m));
    if (m.recent) meta.append(tag('recent', 'recent', 'Updated in the last 7 days'));
    if (m.protected) {
      meta.append(tag('kept by you', 'protected', 'Added or edited by a person: never dropped to make room'));
    }
    if (m.source === 'model') meta.append(tag('saved by the persona', 'source'));
    const actions = make('div', 'mem-actions');
    actions.append(
      H.button('Edit', 'mem-edit', () => startEdit(li, m)),
      H.button(m.pinned ? 'Unpin' : 'Pin', 'mem-pin', () => setPinned(m, !m.pinned)),
      H.button('Forget', 'mem-forget danger', () => forget(m)),
    );
    li.append(make('p', 'mem-text', m.text), meta, whyLine(m), actions);
    return li;
  }

  function whyLine(m) {
    const use = m.last_used;
    if (!use) return make('p', 'mem-why', 'Not used in a reply yet.');
    const when = new Date(use.at).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
    const why = make('p', 'mem-why', `Last used ${when}, answering: “${use.message}”`);
    why.title = `Turn ${use.turn} in ${use.chat}`;
    return why;
  }

  // ---- actions -------------------------------------------------------------------------
  async function run(action, success) {
    try {
      const result = await action();
      if (success) H.toast(success(result), 'memory');
    } catch (err) {
      H.toast(err.message, 'error');
    }
    await refresh();
  }

  function startEdit(li, m) {
    const box = make('textarea', 'mem-edit-text');
    box.value = m.text;
    box.maxLength = data.limits.chars;
    box.rows = 3;
    box.setAttribute('aria-label', 'Memory text');
    const save = H.button('Save', 'primary mem-save', () => run(
      () => H.api('PATCH', `/app/memories/${encodeURIComponent(m.id)}`, { text: box.value }),
      () => 'Memory updated.',
    ));
    const cancel = H.button('Cancel', 'mem-cancel', () => refresh());
    const actions = make('div', 'mem-actions');
    actions.append(save, cancel);
    li.replaceChildren(box, actions);
    box.focus();
  }

  function setPinned(m, pinned) {
    return run(
      () => H.api('PATCH', `/app/memories/${encodeURIComponent(m.id)}`, { pinned }),
      () => (pinned ? 'Pinned: sent with every reply.' : 'Unpinned.'),
    );
  }

  async function forget(m) {
    if (m.pinned && !(await H.confirm({
      title: 'Forget a pinned memory?', text: `“${m.text}” will be deleted (Undo stays offered for 10 seconds).`, ok: 'Forget',
    }))) return;
    try {
      await H.api('DELETE', `/app/memories/${encodeURIComponent(m.id)}`);
    } catch (err) {
      H.toast(err.message, 'error');
      await refresh();
      return;
    }
    const note = H.toast(`Forgot: “${m.text}”`, 'memory', UNDO_MS);
    const undo = H.button('Undo', 'toast-undo', async () => {
      note.remove();
      await run(() => H.api('POST', `/app/memories/${encodeURIComponent(m.id)}/restore`), () => `Restored: “${m.text}”`);
    });
    note.insertBefore(undo, note.querySelector('.toast-close'));
    await refresh();
  }

  async function clearAll(list) {
    const unpinned = list.memories.filter((m) => !m.pinned).length;
    const first = await H.confirm({
      title: `Clear all of “${list.title}”?`,
      text: `${plural(unpinned, 'unpinned memory', 'unpinned memories')} will be deleted for good. ` +
        'Pinned memories are kept unless you confirm a second time.',
      ok: 'Clear all',
    });
    if (!first) return;
    const body = { list: list.list, persona: personaId() };
    try {
      const done = await H.api('POST', `${base()}/clear`, body);
      H.toast(`Forgot ${plural(done.deleted, 'memory', 'memories')}.`, 'memory');
      if (done.pinned_left > 0) {
        const second = await H.confirm({
          title: 'Delete the pinned memories too?',
          text: `${plural(done.pinned_left, 'pinned memory is', 'pinned memories are')} still kept. ` +
            `Delete ${done.pinned_left === 1 ? 'it' : 'them'} as well? This cannot be undone.`,
          ok: 'Delete pinned too', cancel: 'Keep pinned',
        });
        if (second) {
          const again = await H.api('POST', `${base()}/clear`, { ...body, pinned_confirmed: true });
          H.toast(`Forgot ${plural(again.deleted, 'pinned memory', 'pinned memories')}.`, 'memory');
        }
      }
    } catch (err) {
      H.toast(err.message, 'error');
    }
    await refresh();
  }

  async function add(e) {
    e.preventDefault();
    const text = $('#memory-text').value.trim();
    if (!text) { $('#memory-text').focus(); return; }
    const body = { list: $('#memory-list').value, text, pinned: $('#memory-pinned').checked, persona: personaId() };
    try {
      const saved = await H.api('POST', base(), body);
      $('#memory-text').value = '';
      $('#memory-pinned').checked = false;
      H.toast(`Saved: “${saved.memory.text}”`, 'memory');
      if (saved.forgotten) H.toast(`To make room, forgot: “${saved.forgotten.text}”`, 'memory');  // DEC-11
    } catch (err) {
      H.toast(err.message, 'error');
    }
    await refresh();
  }

  // ---- create memories (MEM-6c) --------------------------------------------------------
  const compose = $('#compose-dialog');
  function openCompose() {
    $('#compose-text').value = '';
    $('#compose-count').textContent = '0';
    H.showError($('#compose-error'), null);
    compose.showModal();
  }

  async function submitCompose(e) {
    e.preventDefault();
    const button = $('#compose-submit');
    button.disabled = true;
    try {
      const body = { list: $('#compose-list').value, description: $('#compose-text').value, persona: personaId() };
      const made = await H.api('POST', `${base()}/compose`, body);
      compose.close();
      H.toast(`Created ${plural(made.memories.length, 'memory', 'memories')}.`, 'memory');
      await refresh();
    } catch (err) {
      H.showError($('#compose-error'), err);
    } finally {
      button.disabled = false;
    }
  }

  // ---- save from dialogue (MEM-6d) -----------------------------------------------------
  const dialogue = $('#dialogue-dialog');
  const picked = () => [...document.querySelectorAll('#dialogue-messages input:checked')].map((c) => c.value);

  function updatePicked() {
    const n = picked().length;
    $('#dialogue-count').textContent = String(n);
    document.querySelectorAll('#dialogue-messages input:not(:checked)').forEach((c) => {
      c.disabled = n >= DIALOGUE_MAX;
    });
  }

  function reviewing(on) {
    $('#dialogue-drafts').hidden = !on;
    $('#dialogue-save-drafts').hidden = !on;
    $('#dialogue-compose').hidden = on;
    $('#dialogue-keep').hidden = on;
  }

  async function openDialogue() {
    H.showError($('#dialogue-error'), null);
    reviewing(false);
    const s = session();
    const qs = new URLSearchParams({ persona: personaId(), room: s.room || 'main' });
    let fresh;
    try {
      fresh = await H.api('GET', `/app/session?${qs}`);
    } catch (err) {
      H.toast(err.message, 'error');
      return;
    }
    const items = fresh.messages.filter((m) => m.text).map((m) => {
      const li = make('li', 'pick');
      const box = make('input');
      box.type = 'checkbox';
      box.value = m.id;
      box.id = `pick-${m.id}`;
      const label = make('label');
      label.htmlFor = box.id;
      label.append(make('strong', null, `${m.name}: `), document.createTextNode(m.text));
      li.dataset.role = m.role;
      li.append(box, label);
      return li;
    });
    $('#dialogue-messages').replaceChildren(...items);
    if (!items.length) $('#dialogue-messages').append(make('li', 'empty', 'No messages in this chat yet.'));
    updatePicked();
    dialogue.showModal();
  }

  async function saveDialogue(mode, texts) {
    const ids = picked();
    if (!ids.length) { H.showError($('#dialogue-error'), new Error('Select at least one message.')); return; }
    const body = { list: $('#dialogue-list').value, messages: ids, mode, persona: personaId() };
    if (texts) body.texts = texts;
    try {
      const result = await H.api('POST', `${base()}/from-dialogue`, body);
      if (mode === 'compose') { showDrafts(result.drafts); return; }
      dialogue.close();
      H.toast(`Saved ${plural(result.memories.length, 'pinned memory', 'pinned memories')}.`, 'memory');
      await refresh();
    } catch (err) {
      H.showError($('#dialogue-error'), err);
    }
  }

  function showDrafts(drafts) {
    if (!drafts.length) {
      H.showError($('#dialogue-error'), new Error('Nothing in these messages looks worth remembering.'));
      return;
    }
    const items = drafts.map((text, i) => {
      const li = make('li', 'draft');
      const keep = make('input');
      keep.type = 'checkbox';
      keep.checked = true;
      keep.setAttribute('aria-label', `Keep draft ${i + 1}`);
      const box = make('textarea');
      box.value = text;
      box.rows = 2;
      box.maxLength = 500;
      box.setAttribute('aria-label', `Draft ${i + 1}`);
      li.append(keep, box);
      return li;
    });
    $('#dialogue-draft-list').replaceChildren(...items);
    reviewing(true);
  }

  function saveDrafts() {
    const texts = [...document.querySelectorAll('#dialogue-draft-list .draft')]
      .filter((li) => li.querySelector('input').checked)
      .map((li) => li.querySelector('textarea').value.trim())
      .filter(Boolean);
    if (!texts.length) { H.showError($('#dialogue-error'), new Error('Keep at least one draft.')); return; }
    saveDialogue('keep', texts);
  }

  async function setNotices() {
    const level = $('#memory-notices').value;
    try {
      await H.api('PUT', `/app/chats/${encodeURIComponent(session().chat)}/memory-notices`, { level });
      H.toast(`Memory notices: ${level}.`, 'ok');
    } catch (err) {
      H.toast(err.message, 'error');
      await refresh();
    }
  }

  // ---- memory off (MEM-8): the menu's toggle and the header's badge ----------------------
  const toggle = $('#memory-toggle');
  const settingsUrl = () => `/app/chats/${encodeURIComponent(session().chat)}/settings`;

  function showMode(memory) {
    const off = memory === 'off';
    toggle.textContent = off ? 'Memory: off' : 'Memory: on';
    toggle.setAttribute('aria-pressed', String(!off));
    $('#memory-off-badge').hidden = !off;
  }

  async function loadMode() {
    const s = session();
    toggle.hidden = !s || Boolean(s.guest);
    $('#memory-off-badge').hidden = true;
    if (!s || s.guest) return;
    try {
      showMode((await H.api('GET', settingsUrl())).memory);
    } catch (err) {
      toggle.hidden = true;
    }
  }

  async function switchMode() {
    const memory = toggle.getAttribute('aria-pressed') === 'true' ? 'off' : 'on';
    try {
      showMode((await H.api('PUT', settingsUrl(), { memory })).memory);
      H.toast(memory === 'off' ? 'Memory is off in this chat.' : 'Memory is back on in this chat.', 'ok');
      await refresh();
    } catch (err) {
      H.toast(err.message, 'error');
    }
  }

  // ---- wiring --------------------------------------------------------------------------
  toggle.addEventListener('click', switchMode);
  opener.addEventListener('click', () => setOpen(panel.hidden));
  $('#memory-close').addEventListener('click', () => setOpen(false));
  // Escape closes the panel (a dialog open above it closes first, by itself), focus back on its button
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || panel.hidden || e.defaultPrevented || document.querySelector('dialog[open]')) return;
    const inside = panel.contains(document.activeElement);
    setOpen(false);
    if (inside || document.activeElement === document.body) opener.focus();
  });
  $('#memory-add').addEventListener('submit', add);
  $('#memory-notices').addEventListener('change', setNotices);
  $('#memory-compose-open').addEventListener('click', openCompose);
  $('#compose-form').addEventListener('submit', submitCompose);
  $('#compose-cancel').addEventListener('click', () => compose.close());
  $('#compose-text').addEventListener('input', () => {
    $('#compose-count').textContent = $('#compose-text').value.length.toLocaleString();
  });
  $('#memory-dialogue-open').addEventListener('click', openDialogue);
  $('#dialogue-messages').addEventListener('change', updatePicked);
  $('#dialogue-cancel').addEventListener('click', () => dialogue.close());
  $('#dialogue-keep').addEventListener('click', () => saveDialogue('keep'));
  $('#dialogue-compose').addEventListener('click', () => saveDialogue('compose'));
  $('#dialogue-save-drafts').addEventListener('click', saveDrafts);
  H.on('session', () => { refresh(); loadMode(); });
  H.on('done', () => refresh());
})();
