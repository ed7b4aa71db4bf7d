/*
 * The chat's cast (CAST-1..6): several personas in one chat.
 *   GET    /app/chats/<chat>/personas -> {chat, personas: [id], strategy, max_replies, muted: [id]}
 *   PUT    /app/chats/<chat>/personas {personas, strategy, max_replies, muted} -> the same (422 names a problem)
 *   DELETE /app/chats/<chat>/personas -> one persona again
 * The Cast dialog adds, removes, reorders (↑ ↓) and mutes members and sets the order and N. With a
 * cast, the composer shows "Who answers" (the cast's order, or one member: the message's
 * ``speaker``) and "Speak next" (that member answers the newest message once more).
 * Safety: names are only ever set with textContent / option text, never innerHTML.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const make = H.make;
  const dlg = $('#cast-dialog');
  const speaker = $('#speaker-select');
  const speakNext = $('#speak-next');
  let draft = { personas: [], muted: [], strategy: 'natural', max_replies: 1 };

  const session = () => H.state.session;
  const base = () => `/app/chats/${encodeURIComponent(session().chat)}/personas`;
  const nameOf = (id) => ((session() && session().personas) || []).find((p) => p.id === id)?.name || id;

  function showError(message) {
    const el = $('#cast-error');
    el.textContent = message || '';
    el.hidden = !message;
  }

  // the composer's picker: only with a cast of two or more
  function renderComposer(cast) {
    const on = Boolean(cast && cast.personas.length > 1);
    speaker.hidden = !on;
    speakNext.hidden = !on;
    if (!on) { speaker.replaceChildren(); return; }
    const kept = speaker.value;
    const order = { natural: 'Whoever is named', list: 'Next in turn', manual: 'Only whom I name' }[cast.strategy];
    speaker.replaceChildren(new Option(order || 'By the cast', ''),
      ...cast.personas.map((id) => new Option(`${nameOf(id)}${cast.muted.includes(id) ? ' (muted)' : ''}`, id)));
    if ([...speaker.options].some((o) => o.value === kept)) speaker.value = kept;
  }

  // replies already on the page that name no writer: the page's persona wrote them
  function markReplies(cast) {
    if (!cast || cast.personas.length < 2) return;
    const own = session().persona;
    for (const el of document.querySelectorAll('#messages .msg[data-role="assistant"]:not([data-persona])')) {
      H.setPersona(el, own.id, null);
    }
  }

  function apply(cast) {
    H.state.cast = cast && cast.personas.length ? cast : null;
    renderComposer(H.state.cast);
    markReplies(H.state.cast);
  }

  async function load() {
    if (!session()) return;
    try {
      apply(await H.api('GET', base()));
    } catch {
      apply(null);
    }
  }

  function move(i, by) {
    const list = draft.personas;
    const j = i + by;
    if (j < 0 || j >= list.length) return;
    [list[i], list[j]] = [list[j], list[i]];
    renderDialog();
  }

  function renderDialog() {
    const rows = draft.personas.map((id, i) => {
      const li = make('li', 'sum-tier cast-member');
      li.dataset.persona = id;
      const muted = draft.muted.includes(id);
      li.append(make('span', 'msg-author', nameOf(id)));
      li.append(H.button('↑', 'cast-up', () => move(i, -1)), H.button('↓', 'cast-down', () => move(i, 1)));
      li.append(H.button(muted ? 'Unmute' : 'Mute', 'cast-mute', () => {
        draft.muted = muted ? draft.muted.filter((m) => m !== id) : [...draft.muted, id];
        renderDialog();
      }));
      li.append(H.button('Remove', 'cast-remove danger', () => {
        draft.personas = draft.personas.filter((m) => m !== id);
        draft.muted = draft.muted.filter((m) => m !== id);
        renderDialog();
      }));
      return li;
    });
    $('#cast-members').replaceChildren(...rows);
    const others = ((session() && session().personas) || []).filter((p) => !draft.personas.includes(p.id));
    $('#cast-add').replaceChildren(...others.map((p) => new Option(p.name, p.id)));
    $('#cast-add-button').disabled = !others.length;
    $('#cast-strategy').value = draft.strategy;
    const max = $('#cast-max');
    max.max = String(Math.max(1, draft.personas.length));
    max.value = String(Math.min(Number(draft.max_replies) || 1, Math.max(1, draft.personas.length)));
  }

  async function open() {
    showError('');
    const cast = H.state.cast;
    const own = session().persona.id;
    draft = cast
      ? { personas: [...cast.personas], muted: [...cast.muted], strategy: cast.strategy, max_replies: cast.max_replies }
      : { personas: [own], muted: [], strategy: 'natural', max_replies: 1 };
    renderDialog();
    if (!dlg.open) dlg.showModal();
  }

  async function save() {
    showError('');
    const body = {
      personas: draft.personas,
      muted: draft.muted,
      strategy: $('#cast-strategy').value,
      max_replies: Number($('#cast-max').value) || 1,
    };
    try {
      apply(await H.api('PUT', base(), body));
      H.toast('Cast saved.', 'ok');
      dlg.close();
    } catch (err) {
      showError(err.message);
    }
  }

  async function clear() {
    try {
      apply(await H.api('DELETE', base()));
      H.toast('One persona again.', 'ok');
      dlg.close();
    } catch (err) {
      showError(err.message);
    }
  }

  $('#open-cast').addEventListener('click', open);
  $('#cast-close').addEventListener('click', () => dlg.close());
  $('#cast-save').addEventListener('click', save);
  $('#cast-clear').addEventListener('click', clear);
  $('#cast-strategy').addEventListener('change', (e) => { draft.strategy = e.target.value; });
  $('#cast-max').addEventListener('change', (e) => { draft.max_replies = Number(e.target.value) || 1; });
  $('#cast-add-button').addEventListener('click', () => {
    const id = $('#cast-add').value;
    if (id && !draft.personas.includes(id)) draft.personas.push(id);
    renderDialog();
  });
  speakNext.addEventListener('click', () => {
    const cast = H.state.cast;
    const who = speaker.value || (cast && cast.personas[0]);
    if (!H.speakNext(who)) H.toast('Wait for the reply to finish first.', 'error');
  });
  H.on('session', () => load());
})();
