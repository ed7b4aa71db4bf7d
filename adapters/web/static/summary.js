/*
 * The conversation-memory view (SUM-4): the summaries of this chat's older messages.
 *   GET  /app/chats/<chat>/summary           -> {recent, merged, long_term: [Tier], unsummarized, max_chars}
 *        Tier = {id, level, text, messages, created_at, edited, offline}
 *   PUT  /app/chats/<chat>/summary/<tier> {text} -> {tier}
 *   POST /app/chats/<chat>/summary/rebuild   -> 202 {chat, queued}
 * Levels are shown oldest first, as the prompt reads them: long-term, merged, recent (SUM-3).
 * Each tier shows how many messages it covers, "extractive (no LLM)" when no model wrote it
 * (SUM-5) and "edited" when a person rewrote it. The worker writes tiers in the background, so
 * the view refreshes after every reply while it is open.
 * Safety: summary text is only ever set with textContent / form values, never innerHTML.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const make = H.make;
  const dlg = $('#summary-dialog');
  const opener = $('#open-summary');
  const LEVELS = [
    ['long_term', 'Long-term', 'Four merged summaries folded into one.'],
    ['merged', 'Merged', 'Four recent summaries folded into one.'],
    ['recent', 'Recent', 'Each covers a stretch of messages that left the live window.'],
  ];
  let data = null;

  const session = () => H.state.session;
  const base = () => `/app/chats/${encodeURIComponent(session().chat)}/summary`;
  const plural = (n, one, many) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

  const tag = H.tag;

  function renderTier(t) {
    const li = make('li', 'sum-tier');
    li.dataset.id = t.id;
    li.dataset.level = t.level;
    li.dataset.edited = String(Boolean(t.edited));
    li.dataset.offline = String(Boolean(t.offline));
    const meta = make('div', 'sum-meta');
    meta.append(tag(`covers ${plural(t.messages, 'message', 'messages')}`, 'covers'));
    if (t.offline) meta.append(tag('extractive (no LLM)', 'offline', 'Written without a language model: the first sentence of each message'));
    if (t.edited) meta.append(tag('edited', 'edited', 'Rewritten by a person'));
    const when = make('time', 'sum-time');
    H.formatTime(when, new Date(t.created_at));
    meta.append(when);
    const actions = make('div', 'sum-actions');
    actions.append(H.button('Edit', 'sum-edit', () => startEdit(li, t)));
    li.append(make('p', 'sum-text', t.text), meta, actions);
    return li;
  }

  function renderLevel([level, title, hint]) {
    const tiers = data[level] || [];
    const section = make('section', 'sum-level');
    section.dataset.level = level;
    const head = make('header', 'sum-level-head');
    head.append(make('h3', null, title), make('span', 'count', plural(tiers.length, 'summary', 'summaries')));
    section.append(head, make('p', 'hint', hint));
    if (!tiers.length) {
      section.append(make('p', 'empty', 'None yet.'));
      return section;
    }
    const list = make('ol', 'sum-tiers');
    list.append(...tiers.map(renderTier));
    section.append(list);
    return section;
  }

  // Why messages wait: a summary covers `chunk` messages, so fewer wait for more; a full chunk
  // waits for the worker process (it runs in the background). Nothing waiting: nothing shown.
  function renderWaiting(n, chunk) {
    const el = $('#summary-unsummarized');
    el.dataset.count = String(n);
    el.hidden = !n;
    if (!n) { el.textContent = ''; return; }
    const head = `${plural(n, 'message has', 'messages have')} left the live window and ${n === 1 ? 'is' : 'are'} not summarized yet`;
    el.textContent = n < chunk
      ? `${head}: summaries cover ${chunk} messages each, so the next one is written when ${chunk - n} more ${chunk - n === 1 ? 'has' : 'have'} left the window.`
      : `${head}: the worker summarizes them in the background, usually within a minute. If this stays, is the worker process running?`;
  }

  async function refresh() {
    const s = session();
    if (!s || !dlg.open) return;
    try {
      data = await H.api('GET', base());
      renderWaiting(data.unsummarized, data.chunk || 20);
      $('#summary-levels').replaceChildren(...LEVELS.map(renderLevel));
      dlg.dataset.loaded = 'true';
    } catch (err) {
      $('#summary-levels').replaceChildren(make('p', 'form-error', err.message));
    }
  }

  function startEdit(li, t) {
    const box = make('textarea', 'sum-edit-text');
    box.value = t.text;
    box.maxLength = data.max_chars;
    box.rows = 6;
    box.setAttribute('aria-label', 'Summary text');
    const save = H.button('Save', 'primary sum-save', async () => {
      save.disabled = true;
      try {
        await H.api('PUT', `${base()}/${encodeURIComponent(t.id)}`, { text: box.value });
        H.toast('Summary saved.', 'ok');
      } catch (err) {
        H.toast(err.message, 'error');
      }
      await refresh();
    });
    const cancel = H.button('Cancel', 'sum-cancel', () => refresh());
    const actions = make('div', 'sum-actions');
    actions.append(save, cancel);
    li.replaceChildren(box, actions);
    box.focus();
  }

  async function rebuild() {
    const ok = await H.confirm({
      title: 'Rebuild the summaries?',
      text: 'Every summary of this chat, edited ones included, is deleted and the conversation is ' +
        'summarized again from the start in the background. This cannot be undone.',
      ok: 'Rebuild',
    });
    if (!ok) return;
    try {
      await H.api('POST', `${base()}/rebuild`);
      H.toast('Rebuilding the summaries in the background…', 'ok');
    } catch (err) {
      H.toast(err.message, 'error');
    }
    await refresh();
  }

  function setOpen(open) {
    if (open) {
      dlg.dataset.loaded = 'false';
      $('#summary-levels').replaceChildren(make('p', 'hint', 'Loading…'));
      if (!dlg.open) dlg.showModal();
      refresh();
    } else if (dlg.open) {
      dlg.close();
    }
  }

  opener.addEventListener('click', () => setOpen(true));
  $('#summary-close').addEventListener('click', () => setOpen(false));
  $('#summary-refresh').addEventListener('click', () => refresh());
  $('#summary-rebuild').addEventListener('click', rebuild);
  H.on('session', () => refresh());
  H.on('done', () => refresh());
})();
