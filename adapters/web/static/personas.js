/*
 * Personas: pick one for this room, make or edit one, import a character card, export a card.
 *   GET    /app/personas -> {personas: [{id, name, greeting, avatar, private, editable, ...}], admin, can_create}
 *   POST   /app/personas/import[?shared=true]  (the card file as the body) -> {persona}
 *   POST   /app/personas {name, system_prompt, greeting, description, personality, scenario, mes_example,
 *                         alternate_greetings: [str], model: {name, max_tokens, provider},
 *                         lorebooks, learn_from_chat, shared} -> {persona};  PUT /app/personas/<id> the same
 *   PUT    /app/personas/<id>/avatar (image body);  GET /app/personas/<id>/card (a PNG card)
 *   GET/POST /app/personas/<id>/documents;  DELETE /app/personas/<id>
 * Errors show inside the dialog, next to what failed (it is in the top layer; the page's toasts are not).
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const dlg = $('#personas-dialog');
  const form = $('#persona-form');
  const err = $('#personas-error');
  const formErr = $('#persona-form-error');
  let listing = { personas: [], admin: false, can_create: false };
  let editing = null;        // the persona being edited, or null for a new one
  let avatarFile = null;

  function avatarInto(el, persona) {
    el.replaceChildren();
    if (persona && persona.avatar) {
      const img = document.createElement('img');
      img.src = `${persona.avatar}?v=${Date.now()}`;
      img.alt = '';
      el.append(img);
    } else {
      el.textContent = ((persona && persona.name) || '?').trim().charAt(0).toUpperCase();
    }
  }

  async function pick(id) {
    const url = new URL(location.href);
    if (id && id !== 'default') url.searchParams.set('persona', id); else url.searchParams.delete('persona');
    url.searchParams.delete('branch');
    history.replaceState(null, '', url);
    await H.reloadSession();
  }

  function renderList() {
    const current = H.state.session && H.state.session.persona ? H.state.session.persona.id : 'default';
    const rows = listing.personas.map((p) => {
      const li = H.make('li', 'persona-item');
      li.dataset.id = p.id;
      const pic = H.make('span', 'avatar');
      avatarInto(pic, p);
      const text = H.make('div', 'persona-text');
      text.append(H.make('strong', 'persona-name', p.name),
        H.make('span', `tag ${p.private ? 'private' : 'shared'}`, p.private ? 'yours' : 'shared'));
      if (p.description) text.append(H.make('span', 'persona-desc', p.description.slice(0, 140)));
      const acts = H.make('div', 'persona-acts');
      const talk = H.button(p.id === current ? 'Talking' : 'Talk', 'persona-talk', async () => {
        dlg.close();
        await pick(p.id);
      });
      talk.disabled = p.id === current;
      acts.append(talk);
      if (p.editable) acts.append(H.button('Edit', 'persona-edit', () => openForm(p)));
      if (p.editable) acts.append(H.button('Settings', 'persona-settings', () => H.openSettings(p)));
      li.append(pic, text, acts);
      return li;
    });
    $('#persona-list').replaceChildren(...rows);
  }

  async function load() {
    H.showError(err, null);
    try {
      listing = await H.api('GET', '/app/personas');
    } catch (e) {
      H.showError(err, e);
      return;
    }
    const guest = !listing.can_create;
    $('#personas-guest').hidden = !guest;
    $('#personas-actions').hidden = guest;
    $('#persona-shared-box').hidden = !listing.admin;
    renderList();
  }

  async function open() {
    form.hidden = true;
    dlg.showModal();
    await load();
  }

  async function importCard(file) {
    H.showError(err, null);
    const shared = listing.admin && $('#persona-shared').checked ? '?shared=true' : '';
    try {
      const got = await H.api('POST', `/app/personas/import${shared}`, undefined,
        { raw: file, type: file.type || 'application/octet-stream' });
      dlg.close();
      await pick(got.persona.id);
      H.toast(`${got.persona.name} is here${got.persona.lorebooks.length ? ', with their lorebook' : ''}.`, 'ok');
    } catch (e) {
      H.showError(err, new Error(`Could not import ${file.name}: ${e.message}`));
    }
  }

  async function renderBooks(selected) {
    const box = $('#pf-books');
    box.replaceChildren(H.make('span', 'hint', 'Loading…'));
    let books = [];
    try {
      books = (await H.api('GET', '/app/lorebooks')).lorebooks;
    } catch { /* shown as none */ }
    if (!books.length) { box.replaceChildren(H.make('span', 'hint', 'No lorebooks yet (import one in Lorebooks).')); return; }
    box.replaceChildren(...books.map((b) => {
      const label = H.make('label', 'check');
      const input = document.createElement('input');
      input.type = 'checkbox';
      input.value = b.id;
      input.checked = selected.includes(b.id);
      label.append(input, document.createTextNode(` ${b.name}`));
      return label;
    }));
  }

  async function renderDocs(persona) {
    const box = $('#pf-docs-box');
    box.hidden = !persona || !H.state.session || !H.state.session.memory;
    if (box.hidden) return;
    try {
      const got = await H.api('GET', `/app/personas/${encodeURIComponent(persona.id)}/documents`);
      $('#pf-docs').replaceChildren(...got.documents.map(
        (d) => H.make('li', null, `${d.name} · ${d.chars.toLocaleString()} characters`)));
    } catch (e) {
      H.showError(formErr, e);
    }
  }

  function openForm(persona) {
    editing = persona;
    avatarFile = null;
    H.showError(formErr, null);
    $('#persona-form-title').textContent = persona ? `Edit ${persona.name}` : 'New persona';
    $('#pf-name').value = persona ? persona.name : '';
    $('#pf-prompt').value = persona ? (persona.system_prompt || '') : '';
    $('#pf-greeting').value = persona ? persona.greeting : '';
    $('#pf-description').value = persona ? persona.description : '';
    $('#pf-alt-greetings').value = persona ? (persona.alternate_greetings || []).join('\n---\n') : '';
    $('#pf-personality').value = persona ? (persona.personality || '') : '';
    $('#pf-scenario').value = persona ? (persona.scenario || '') : '';
    $('#pf-examples').value = persona ? (persona.mes_example || '') : '';
    $('#pf-provider').value = persona && persona.model ? (persona.model.provider || '') : '';
    $('#pf-model').value = persona && persona.model ? persona.model.name : '';
    $('#pf-max-tokens').value = persona && persona.model ? persona.model.max_tokens : 1024;
    $('#pf-learn').checked = persona ? persona.learn_from_chat : true;
    avatarInto($('#persona-form-avatar'), persona || { name: '?' });
    $('#pf-delete').hidden = !persona;
    const exp = $('#pf-export');
    exp.hidden = !persona;
    if (persona) exp.href = `/app/personas/${encodeURIComponent(persona.id)}/card`;
    renderBooks(persona ? persona.lorebooks : []);
    renderDocs(persona);
    form.hidden = false;
    form.scrollIntoView({ block: 'start' });
    $('#pf-name').focus();
  }

  async function save(e) {
    e.preventDefault();
    H.showError(formErr, null);
    const body = {
      name: $('#pf-name').value.trim(),
      system_prompt: $('#pf-prompt').value,
      greeting: $('#pf-greeting').value,
      description: $('#pf-description').value,
      alternate_greetings: $('#pf-alt-greetings').value.split(/^---$/m).map((g) => g.trim()).filter(Boolean),
      personality: $('#pf-personality').value,
      scenario: $('#pf-scenario').value,
      mes_example: $('#pf-examples').value,
      model: {
        name: $('#pf-model').value.trim(),
        max_tokens: Number($('#pf-max-tokens').value) || 1024,
        provider: $('#pf-provider').value,
      },
      lorebooks: [...$('#pf-books').querySelectorAll('input:checked')].map((i) => i.value),
      learn_from_chat: $('#pf-learn').checked,
      shared: editing ? !editing.private : (listing.admin && $('#persona-shared').checked),
    };
    $('#pf-save').disabled = true;
    try {
      const got = editing
        ? await H.api('PUT', `/app/personas/${encodeURIComponent(editing.id)}`, body)
        : await H.api('POST', '/app/personas', body);
      if (avatarFile) {
        await H.api('PUT', `/app/personas/${encodeURIComponent(got.persona.id)}/avatar`, undefined,
          { raw: avatarFile, type: avatarFile.type || 'application/octet-stream' });
      }
      form.hidden = true;
      await load();
      await H.reloadSession();
      H.toast(`${got.persona.name} saved.`, 'ok');
    } catch (error) {
      H.showError(formErr, error);
    } finally {
      $('#pf-save').disabled = false;
    }
  }

  async function remove() {
    if (!editing) return;
    const ok = await H.confirm({
      title: `Delete ${editing.name}?`,
      text: 'The persona goes; what it remembered about people becomes memories every persona reads.',
      ok: 'Delete',
    });
    if (!dlg.open) dlg.showModal();
    if (!ok) return;
    try {
      await H.api('DELETE', `/app/personas/${encodeURIComponent(editing.id)}`);
      form.hidden = true;
      const current = H.state.session && H.state.session.persona && H.state.session.persona.id;
      if (current === editing.id) await pick('default');
      await load();
    } catch (error) {
      H.showError(formErr, error);
    }
  }

  async function addDoc(file) {
    if (!editing || !file) return;
    try {
      const text = await file.text();
      await H.api('POST', `/app/personas/${encodeURIComponent(editing.id)}/documents`, { name: file.name, text });
      await renderDocs(editing);
    } catch (error) {
      H.showError(formErr, error);
    }
  }

  $('#open-personas').addEventListener('click', open);
  $('#personas-close').addEventListener('click', () => dlg.close());
  $('#persona-new').addEventListener('click', () => openForm(null));
  $('#pf-cancel').addEventListener('click', () => { form.hidden = true; });
  $('#pf-delete').addEventListener('click', remove);
  form.addEventListener('submit', save);
  $('#persona-file').addEventListener('change', (e) => {
    const file = e.target.files[0];
    e.target.value = '';
    if (file) importCard(file);
  });
  $('#persona-avatar-file').addEventListener('change', (e) => {
    avatarFile = e.target.files[0] || null;
    if (!avatarFile) return;
    const img = document.createElement('img');
    img.src = URL.createObjectURL(avatarFile);
    img.alt = '';
    $('#persona-form-avatar').replaceChildren(img);
  });
  $('#pf-doc-file').addEventListener('change', (e) => {
    const file = e.target.files[0];
    e.target.value = '';
    addDoc(file);
  });
})();
