/*
 * The archive view (EPI-1, EPI-13): this chat's earlier sessions and the running session's notes.
 *   GET    /app/chats/<chat>/archive                     -> {pages: [Page], notes: [Page], note_chars, session_notes, pinned_first}
 *          Page = {id, layer, status, pinned, abstract, summary, score, cold, reads, created_at, author}
 *   PUT    /app/chats/<chat>/archive/pages/<id>/pin      -> {page}   pin: never swept, sent with every reply
 *   DELETE /app/chats/<chat>/archive/pages/<id>/pin      -> {page}   unpin
 *   POST   /app/chats/<chat>/archive/notes {text}        -> 201 {page}  a working note for this session
 * Pages are listed newest first; each shows its status, retention score and reads, and a Pin /
 * Unpin button. The worker writes pages in the background, so the view refreshes after every
 * reply while it is open (the persona may add notes with its tool, too).
 * Safety: page and note text is only ever set with textContent, never innerHTML.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const make = H.make;
  const dlg = $('#archive-dialog');
  let data = null;

  const session = () => H.state.session;
  const base = () => `/app/chats/${encodeURIComponent(session().chat)}/archive`;

  const tag = H.tag;

  function renderPage(p) {
    const li = make('li', 'sum-tier arc-page');
    li.dataset.id = p.id;
    li.dataset.pinned = String(p.pinned);
    li.dataset.status = p.status;
    const meta = make('div', 'sum-meta');
    if (p.pinned) meta.append(tag('pinned', 'pinned', 'Never swept; sent with every reply'));
    meta.append(tag(p.status, p.cold ? 'dormant' : 'active', 'active: searchable; cold: compacted; evicted: out of search'));
    meta.append(tag(`score ${p.score.toFixed(2)}`, 'covers', 'Retention score: falls with age, rises with every read'));
    meta.append(tag(`${p.reads} ${p.reads === 1 ? 'read' : 'reads'}`, 'covers'));
    const when = make('time', 'sum-time');
    H.formatTime(when, new Date(p.created_at));
    meta.append(when);
    const actions = make('div', 'sum-actions');
    const pinnable = p.pinned || p.status === 'active' || p.status === 'cold';
    if (pinnable) {
      actions.append(H.button(p.pinned ? 'Unpin' : 'Pin', 'arc-pin', () => setPinned(p, !p.pinned)));
    }
    li.append(make('p', 'sum-text', p.abstract || p.summary));
    if (p.summary && p.summary !== p.abstract) li.append(make('p', 'hint', p.summary));
    li.append(meta, actions);
    return li;
  }

  function renderNote(n) {
    const li = make('li', 'sum-tier arc-note');
    li.dataset.id = n.id;
    const meta = make('div', 'sum-meta');
    const who = (n.author || '').startsWith('persona:') ? 'by the persona' : 'by you';
    meta.append(tag(who, 'source'));
    li.append(make('p', 'sum-text', n.summary), meta);
    return li;
  }

  async function refresh() {
    const s = session();
    if (!s || !dlg.open) return;
    try {
      data = await H.api('GET', base());
      const pages = [...data.pages].reverse();
      $('#archive-pages').replaceChildren(...(pages.length ? pages.map(renderPage) : [make('p', 'empty', 'No finished sessions yet.')]));
      $('#archive-notes').replaceChildren(...(data.notes.length ? data.notes.map(renderNote) : [make('p', 'empty', 'No notes for this session.')]));
      $('#archive-note-text').maxLength = data.note_chars;
      dlg.dataset.loaded = 'true';
    } catch (err) {
      $('#archive-pages').replaceChildren(make('p', 'form-error', err.message));
    }
  }

  async function run(action, success) {
    try {
      await action();
      if (success) H.toast(success, 'ok');
    } catch (err) {
      H.toast(err.message, 'error');
    }
    await refresh();
  }

  function setPinned(p, pinned) {
    const url = `${base()}/pages/${encodeURIComponent(p.id)}/pin`;
    return run(
      () => H.api(pinned ? 'PUT' : 'DELETE', url),
      pinned ? 'Pinned: kept and sent with every reply.' : 'Unpinned.',
    );
  }

  async function addNote(event) {
    event.preventDefault();
    const box = $('#archive-note-text');
    const text = box.value.trim();
    if (!text) return;
    await run(async () => {
      await H.api('POST', `${base()}/notes`, { text });
      box.value = '';
    }, 'Noted for this session.');
  }

  function setOpen(open) {
    if (open) {
      dlg.dataset.loaded = 'false';
      $('#archive-pages').replaceChildren(make('p', 'hint', 'Loading…'));
      if (!dlg.open) dlg.showModal();
      refresh();
    } else if (dlg.open) {
      dlg.close();
    }
  }

  $('#open-archive').addEventListener('click', () => setOpen(true));
  $('#archive-close').addEventListener('click', () => setOpen(false));
  $('#archive-note-form').addEventListener('submit', addNote);
  H.on('session', () => refresh());
  H.on('done', () => refresh());
})();
