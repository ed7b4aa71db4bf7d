/*
 * Hearth browser chat: plain script, no build step, no external resources.
 *
 * Talks to the Hearth web adapter on the same origin:
 *   GET /app/session[?persona=<id>]  (cookie session) ->
 *       {user, guest, chat, persona: {id, name, greeting}, personas: [{id, name}],
 *        model: {name, offline, label}, messages: [{id, role, name, text, sent_at, turn}]}
 *   WS  /ws/chats/<chat>
 *       client -> {"type": "message", "text", "persona"} | {"type": "regenerate", "turn"}
 *       server -> {"type": "delta", "text"}* then {"type": "done", "turn", "reply", "context"}
 *                 or {"type": "error", "code", "message"}
 * Only one reply streams at a time (sending is disabled meanwhile), so frames need no id.
 * Safety: user and model text is only ever set with textContent / text nodes, never innerHTML.
 */
'use strict';
(() => {
  const LIMIT = 16000;                 // server limit, in Unicode code points (Python len)
  const COUNTER_FROM = LIMIT - 1000;   // show the counter when this close to the limit
  const $ = (sel) => document.querySelector(sel);
  const els = {
    list: $('#messages'), form: $('#composer-form'), composer: $('#composer'),
    send: $('#send'), counter: $('#counter'), status: $('#status'),
    name: $('#persona-name'), badge: $('#offline-badge'), picker: $('#persona-select'),
  };
  const state = {
    session: null,     // last /app/session payload
    userName: 'You',   // author name for messages typed here
    ws: null, online: false, retries: 0, retryTimer: 0,
    pending: null,     // {bubble, userEl?, prevText?, prevTurn?} while a reply streams
    resync: false,     // a stream was cut by a disconnect: reload history on reconnect
    loadError: null,   // the error line shown while /app/session keeps failing
  };

  // ---- rendering -----------------------------------------------------------------------
  const make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text != null) el.textContent = String(text);
    return el;
  };
  const textOf = (bubble) => bubble.querySelector('.msg-text');
  const nearBottom = () => els.list.scrollHeight - els.list.scrollTop - els.list.clientHeight < 120;
  const scrollDown = () => { els.list.scrollTop = els.list.scrollHeight; };

  function formatTime(el, date) {
    if (Number.isNaN(date.getTime())) return;
    const sameDay = date.toDateString() === new Date().toDateString();
    const opts = sameDay ? { hour: '2-digit', minute: '2-digit' }
      : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };
    el.dateTime = date.toISOString();
    el.textContent = date.toLocaleString([], opts);
    el.title = date.toLocaleString();
  }

  function addMessage({ role, name, text, sentAt, turn, id }) {
    const el = make('div', 'msg');
    el.dataset.role = role === 'user' ? 'user' : 'assistant';
    if (turn) el.dataset.turn = turn;
    if (id) el.dataset.id = id;
    const meta = make('div', 'msg-meta');
    const time = make('time', 'msg-time');
    formatTime(time, sentAt ? new Date(sentAt) : new Date());
    meta.append(make('span', 'msg-author', name), time);
    el.append(meta, make('div', 'msg-text', text ?? ''));
    els.list.append(el);
    scrollDown();
    return el;
  }

  function addError(message, code) {
    const el = make('div', 'msg-error', message || 'Something went wrong.');
    if (code) el.dataset.code = code;
    els.list.append(el);
    scrollDown();
    return el;
  }

  // The ↻ button lives only on the last message, and only if that is a persona reply with a turn.
  function updateRegen() {
    els.list.querySelectorAll('.regen').forEach((b) => b.remove());
    const all = els.list.querySelectorAll('.msg');
    const last = all[all.length - 1];
    if (!last || last.dataset.role !== 'assistant' || !last.dataset.turn || state.pending) return;
    const btn = make('button', 'regen', '↻');
    btn.type = 'button';
    btn.title = 'Regenerate this reply';
    btn.setAttribute('aria-label', 'Regenerate this reply');
    btn.disabled = !canSend();
    last.append(btn);
  }

  function render(s) {
    const persona = s.persona || { id: 'default', name: 'Hearth' };
    els.name.textContent = persona.name;
    document.title = `${persona.name} · Hearth`;
    const model = s.model || {};
    els.badge.hidden = !model.offline;
    els.badge.textContent = model.label || 'Offline model';
    els.badge.title = model.offline ? `Replies come from ${model.label || 'an offline model'}, not Claude` : '';
    const personas = Array.isArray(s.personas) && s.personas.length ? s.personas : [persona];
    els.picker.replaceChildren(...personas.map((p) => new Option(p.name, p.id, false, p.id === persona.id)));
    els.list.replaceChildren();
    state.loadError = null;
    const messages = Array.isArray(s.messages) ? s.messages : [];
    const lastUser = messages.filter((m) => m.role === 'user' && m.name).pop();
    state.userName = lastUser ? lastUser.name : 'You';
    if (!messages.length && persona.greeting) {
      addMessage({ role: 'assistant', name: persona.name, text: persona.greeting });
    }
    for (const m of messages) {
      const fallback = m.role === 'user' ? state.userName : persona.name;
      addMessage({ role: m.role, name: m.name || fallback, text: m.text, sentAt: m.sent_at, turn: m.turn, id: m.id });
    }
  }

  // ---- controls ------------------------------------------------------------------------
  const canSend = () => Boolean(state.online && !state.pending && state.ws && state.ws.readyState === WebSocket.OPEN);

  function refreshControls() {
    els.send.disabled = !canSend();
    els.picker.disabled = Boolean(state.pending) || !state.session;
    els.list.setAttribute('aria-busy', state.pending ? 'true' : 'false');
    updateRegen();
  }

  function setOnline(online) {
    state.online = online;
    els.status.textContent = online ? 'online' : 'connecting…';
    els.status.dataset.state = online ? 'online' : 'connecting';
    refreshControls();
  }

  const countChars = (text) => { let n = 0; for (const _ of text) n += 1; return n; };

  // Shows "n / 16,000" near the limit; returns true when the text is too long to send.
  function updateCounter() {
    const n = countChars(els.composer.value.trim());
    const over = n > LIMIT;
    els.counter.hidden = n < COUNTER_FROM;
    els.counter.classList.toggle('over', over);
    els.counter.textContent = `${n.toLocaleString()} / ${LIMIT.toLocaleString()}` +
      (over ? ` — too long, remove ${(n - LIMIT).toLocaleString()} to send` : '');
    els.composer.setAttribute('aria-invalid', over ? 'true' : 'false');
    return over;
  }

  function autosize() {
    els.composer.style.height = 'auto';
    els.composer.style.height = `${els.composer.scrollHeight}px`;   // CSS max-height caps it
  }

  // ---- sending -------------------------------------------------------------------------
  function startReply(userEl) {
    const persona = state.session.persona || {};
    const bubble = addMessage({ role: 'assistant', name: persona.name || 'Hearth', text: '' });
    bubble.dataset.streaming = 'true';
    state.pending = { bubble, userEl };
    refreshControls();
  }

  function sendMessage() {
    const text = els.composer.value.trim();
    if (!text) return;
    if (updateCounter()) {
      els.counter.textContent = `Message too long: ${countChars(text).toLocaleString()} characters, ` +
        `the limit is ${LIMIT.toLocaleString()}. It was not sent.`;
      els.composer.focus();
      return;
    }
    if (!canSend()) return;
    const persona = state.session.persona || {};
    state.ws.send(JSON.stringify({ type: 'message', text, persona: persona.id }));
    const userEl = addMessage({ role: 'user', name: state.userName, text });
    els.composer.value = '';
    autosize();
    updateCounter();
    startReply(userEl);
  }

  function regenerate(bubble) {
    if (!canSend() || !bubble || !bubble.dataset.turn) return;
    state.ws.send(JSON.stringify({ type: 'regenerate', turn: bubble.dataset.turn }));
    state.pending = { bubble, prevText: textOf(bubble).textContent, prevTurn: bubble.dataset.turn };
    textOf(bubble).textContent = '';
    bubble.dataset.streaming = 'true';
    refreshControls();
  }

  // ---- server frames -------------------------------------------------------------------
  function endPending(errorMessage, code) {
    const p = state.pending;
    state.pending = null;
    if (p) {
      const { bubble } = p;
      delete bubble.dataset.streaming;
      if (p.prevText !== undefined) {            // failed regenerate: put the old reply back
        textOf(bubble).textContent = p.prevText;
        bubble.dataset.turn = p.prevTurn;
      } else if (!textOf(bubble).textContent) {
        bubble.remove();                         // nothing streamed: no empty bubble
      } else {
        bubble.dataset.incomplete = 'true';      // keep the partial text, marked as cut off
      }
    }
    addError(errorMessage, code);
    refreshControls();
  }

  function onFrame(frame) {
    if (frame.type === 'delta') {
      if (!state.pending) startReply();          // unexpected: still show what arrives
      const stick = nearBottom();
      textOf(state.pending.bubble).append(String(frame.text ?? ''));   // a text node, not HTML
      if (stick) scrollDown();
    } else if (frame.type === 'done') {
      if (!state.pending) startReply();
      const { bubble, userEl } = state.pending;
      if (typeof frame.reply === 'string') textOf(bubble).textContent = frame.reply;
      if (frame.turn) {
        bubble.dataset.turn = frame.turn;
        if (userEl) userEl.dataset.turn = frame.turn;
      }
      delete bubble.dataset.streaming;
      state.pending = null;
      refreshControls();
      scrollDown();
    } else if (frame.type === 'error') {
      endPending(frame.message || frame.code, frame.code);
    }
  }

  // ---- connection ----------------------------------------------------------------------
  function connect() {
    clearTimeout(state.retryTimer);
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/ws/chats/${encodeURIComponent(state.session.chat)}`);
    state.ws = ws;
    setOnline(false);
    ws.onopen = () => {
      if (ws !== state.ws) return;
      state.retries = 0;
      setOnline(true);
      if (state.resync) { state.resync = false; loadSession(currentPersona()); }
    };
    ws.onmessage = (ev) => {
      if (ws !== state.ws) return;
      let frame;
      try { frame = JSON.parse(ev.data); } catch { return; }
      if (frame && typeof frame === 'object') onFrame(frame);
    };
    ws.onclose = () => {
      if (ws !== state.ws) return;              // a socket we replaced on purpose
      state.ws = null;
      if (state.pending) {
        state.resync = true;
        endPending('Connection lost before the reply finished. Reconnecting…', 'connection_lost');
      }
      setOnline(false);
      const delay = Math.min(10000, 500 * 2 ** state.retries) * (0.75 + Math.random() * 0.5);
      state.retries += 1;
      state.retryTimer = setTimeout(connect, delay);
    };
  }

  const currentPersona = () => new URLSearchParams(location.search).get('persona');

  async function loadSession(personaId) {
    const qs = personaId ? `?persona=${encodeURIComponent(personaId)}` : '';
    let session;
    try {
      const res = await fetch(`/app/session${qs}`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
      const body = await res.json().catch(() => null);
      if (!res.ok || !body || !body.chat) {
        throw new Error((body && body.error && body.error.message) || `HTTP ${res.status}`);
      }
      session = body;
    } catch (err) {
      const text = `Could not load the chat (${err.message}). Retrying…`;
      if (state.loadError && state.loadError.isConnected) state.loadError.textContent = text;
      else state.loadError = addError(text, 'session_unavailable');
      setTimeout(() => loadSession(personaId), 3000);
      return;
    }
    const chatChanged = !state.session || state.session.chat !== session.chat;
    state.session = session;
    render(session);
    if (chatChanged) {
      const old = state.ws;
      state.ws = null;                           // its onclose is ignored from now on
      if (old) old.close();
      state.pending = null;
      state.retries = 0;
      connect();
    }
    refreshControls();
  }

  // ---- wiring --------------------------------------------------------------------------
  els.form.addEventListener('submit', (e) => { e.preventDefault(); sendMessage(); });
  els.composer.addEventListener('keydown', (e) => {
    // isComposing / 229: Enter that confirms an IME candidate (e.g. Vietnamese, CJK) must not send.
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      sendMessage();
    }
  });
  els.composer.addEventListener('input', () => { autosize(); updateCounter(); });
  els.list.addEventListener('click', (e) => {
    const btn = e.target.closest('.regen');
    if (btn) regenerate(btn.closest('.msg'));
  });
  els.picker.addEventListener('change', () => {
    const id = els.picker.value;
    const url = new URL(location.href);
    url.searchParams.set('persona', id);
    history.replaceState(null, '', url);
    loadSession(id);
  });
  window.addEventListener('online', () => { if (!state.ws && state.session) connect(); });

  loadSession(currentPersona());
  els.composer.focus();
})();
