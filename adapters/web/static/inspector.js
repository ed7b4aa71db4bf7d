/*
 * The request inspector (PRM-3, LORE-12): what went into one reply and why.
 *   GET /app/chats/<chat>/turns/<turn> -> {slots, lore, memories, memory_writes, documents, summaries, usage, ...}
 * Slots in template order with token counts (the cached prefix marked), lore entries included
 * and dropped with the reason, timed effects and inclusion-group decisions (LORE-22), memories pinned/active/recalled with similarity, the memory
 * writes the turn made and the ones refused (MEM-4), documents and summaries used, and the
 * provider's cache usage.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const make = H.make;
  const dlg = $('#inspector');
  const body = $('#inspector-body');

  function section(title, cls, ...children) {
    const el = make('section', `ins ${cls}`);
    el.append(make('h3', null, title), ...children);
    return el;
  }

  function table(headers, rows, cls) {
    const t = make('table', cls);
    const head = make('tr');
    head.append(...headers.map((h) => make('th', null, h)));
    const thead = make('thead');
    thead.append(head);
    const tbody = make('tbody');
    for (const row of rows) {
      const tr = make('tr');
      if (row.attrs) for (const [k, v] of Object.entries(row.attrs)) tr.dataset[k] = v;
      tr.append(...row.cells.map((c) => make('td', null, c)));
      tbody.append(tr);
    }
    t.append(thead);
    t.append(tbody);
    return t;
  }

  const num = (n) => (typeof n === 'number' ? n.toLocaleString() : '—');
  const empty = (text) => make('p', 'empty', text);

  function summary(r) {
    const dl = make('dl', 'facts');
    const add = (k, v) => dl.append(make('dt', null, k), make('dd', null, v));
    add('Model', `${r.model} (${r.provider})`);
    add('When', new Date(r.created_at).toLocaleString());
    add('Status', r.status + (r.error ? ` — ${r.error}` : ''));
    add('Took', r.duration_ms != null ? `${num(r.duration_ms)} ms, ${r.attempts} attempt(s)` : '—');
    add('Window', `${r.window.messages} messages, ${num(r.window.tokens)} tokens (budget ${num(r.window.budget)}, ${r.window.dropped} dropped)`);
    add('Documents', `${r.documents} chunk(s) used`);
    add('Summaries', `${r.summaries} used`);
    const st = r.settings;
    if (st) {
      const opt = (v) => (v == null ? 'default' : String(v));
      add('Settings', `temperature ${opt(st.temperature)}, top-p ${opt(st.top_p)}, reply up to ${num(st.max_tokens)} tokens, `
        + `context ${num(st.context_window)}, window ${num(st.window_tokens)}, summaries ${st.summaries ? 'on' : 'off'}, `
        + `learns from chat ${st.learn_from_chat ? 'on' : 'off'}`
        + (st.sampling_sent ? '' : ' (temperature and top-p not sent: this provider refuses them)'));
    }
    return section('Request', 'ins-summary', dl);
  }

  // plain words for the prompt's parts (docs/GLOSSARY.md); the slot id stays in data-slot
  const SLOT_NAMES = {
    persona: 'Persona', pinned_memories: 'Pinned notes', active_memories: 'Notes in use',
    summaries: 'Summaries', lore: 'Lorebook entries', window: 'Recent messages',
    recalled: 'Recalled notes', documents: 'Documents', post_history: 'Final instructions',
  };

  function slots(r) {
    const total = r.slots.reduce((n, s) => n + s.tokens, 0);
    const rows = r.slots.map((s) => ({
      attrs: { slot: s.name },
      cells: [SLOT_NAMES[s.name] || s.name, String(s.messages), num(s.tokens),
        s.stable ? 'same each reply (cached)' : 'changes each reply'],
    }));
    rows.push({ attrs: { slot: 'total' }, cells: ['Total', '', num(total), ''] });
    return section('Parts of the prompt, in order', 'ins-slots', table(['part', 'messages', 'tokens', ''], rows, 'slots'));
  }

  function lore(r) {
    if (!r.lore.length) return section('Lorebook entries', 'ins-lore', empty('No lorebook entry activated.'));
    const rows = r.lore.map((d) => ({
      attrs: { entry: d.entry, included: String(d.included) },
      cells: [d.included ? '✓ included' : '✗ dropped', d.name, d.book_name, d.reason],
    }));
    return section('Lorebook entries', 'ins-lore', table(['', 'entry', 'book', 'why'], rows, 'lore'));
  }

  // Timed effects (LORE-14) and inclusion-group decisions (LORE-15), picked out of the reasons.
  const EFFECTS = [
    ['sticky', /sticky: active since message (\d+), until message (\d+)/],
    ['cooldown', /cooldown: since message (\d+), until message (\d+)/],
    ['delay', /delay: the chat has (\d+) messages, the entry waits for (\d+)/],
    ['group', /((?:won|lost)?[^;]*inclusion group '[^']+'[^;]*)/],
  ];

  function effects(r) {
    const rows = [];
    for (const d of r.lore) {
      for (const [kind, re] of EFFECTS) {
        const m = d.reason.match(re);
        if (!m) continue;
        const detail = kind === 'group' ? m[1].trim()
          : kind === 'delay' ? `waits for ${m[2]} messages (the chat has ${m[1]})`
          : `messages ${m[1]} to ${m[2]}`;
        rows.push({ attrs: { entry: d.entry, kind }, cells: [kind, d.name || d.entry, d.included ? 'included' : 'left out', detail] });
      }
    }
    if (!rows.length) return section('Timed effects and inclusion groups', 'ins-effects', empty('None in this reply.'));
    return section('Timed effects and inclusion groups', 'ins-effects',
      table(['effect', 'entry', '', 'detail'], rows, 'effects'));
  }

  function memories(r) {
    if (!r.memories.length) return section('Memories', 'ins-memories', empty('No memories went into this reply.'));
    const rows = r.memories.map((m) => ({
      attrs: { id: m.id, state: m.state },
      cells: [m.state, m.scope, m.similarity == null ? '—' : m.similarity.toFixed(3), m.text ?? `(${m.id})`],
    }));
    return section('Memories', 'ins-memories', table(['state', 'scope', 'similarity', 'text'], rows, 'memories'));
  }

  function writes(r) {
    const refused = r.refused_writes || [];
    if (!r.memory_writes.length && !refused.length) return section('Memory changes by this reply', 'ins-writes', empty('None.'));
    const rows = r.memory_writes.map((w) => ({ attrs: { kind: w.kind }, cells: [w.kind, w.scope, w.text] }));
    // memory tool calls that changed nothing: refused by the privacy rules (MEM-4) or not done
    for (const w of refused) {
      const what = w.text ?? (w.memory ? `(${w.memory})` : '');
      rows.push({ attrs: { kind: w.kind, code: w.code }, cells: [w.kind === 'refused' ? 'refused' : 'not done', w.scope ?? '—', `${what} — ${w.reason}`] });
    }
    return section('Memory changes by this reply', 'ins-writes', table(['change', 'scope', 'text'], rows, 'writes'));
  }

  function usage(r) {
    const u = r.usage;
    if (!u) return section('Provider usage', 'ins-usage', empty('No usage reported (offline model).'));
    const dl = make('dl', 'facts');
    const add = (k, v) => dl.append(make('dt', null, k), make('dd', null, v));
    add('Input tokens', num(u.input_tokens));
    add('Output tokens', num(u.output_tokens));
    add('Cache written', num(u.cache_creation_input_tokens));
    add('Cache read', num(u.cache_read_input_tokens));
    return section('Provider usage', 'ins-usage', dl);
  }

  async function open({ chat, turn }) {
    body.replaceChildren(make('p', 'hint', 'Loading…'));
    dlg.dataset.turn = turn;
    if (!dlg.open) dlg.showModal();
    try {
      const r = await H.api('GET', `/app/chats/${encodeURIComponent(chat)}/turns/${encodeURIComponent(turn)}`);
      body.replaceChildren(summary(r), slots(r), lore(r), effects(r), memories(r), writes(r), usage(r));
    } catch (err) {
      body.replaceChildren(make('p', 'form-error', err.message));
    }
  }

  H.on('inspect', open);
  $('#inspector-close').addEventListener('click', () => dlg.close());
})();
