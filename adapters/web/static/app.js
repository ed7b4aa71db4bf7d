/*
 * Hearth browser chat: plain script, no build step, no external resources.
 *
 * Talks to the Hearth web adapter on the same origin:
 *   GET /app/session[?persona=<id>&room=<slug>&branch=<id>]  (cookie session) ->
 *       {user, guest, username, chat, room, rooms: [{slug, title}], branch, branches: [{id, title}],
 *        csrf, memory, persona: {id, name, greeting, greetings: [str], avatar}, personas: [{id, name, private, avatar}],
 *        model: {name, offline, label},
 *        messages: [{id, role, name, text, sent_at, turn, mine?, swipes?: [turn ids],
 *                    images?: [{id, media_type, width, height, size}]}]}
 *   POST /app/rooms {name} -> {room: {slug, title}}
 *   PUT/DELETE /app/chats/<chat>/messages/<id>   edit / delete one's own message or a persona reply
 *       (DELETE -> {deleted, also: [ids]}: deleting one's message deletes the reply that answered it)
 *   POST /app/chats/<chat>/turns/<turn>/choose   pick another alternative (swipe) of the last reply
 *   POST /app/chats/<chat>/branches {message, title}  a new chat with the conversation up to a message
 *   PUT  /app/chats/<chat>/branches/<id> {title}  rename a branch
 *   WS  /ws/chats/<chat>
 *       client -> {"type": "message", "text", "persona", "images"?: [{media_type, data (base64)}],
 *                    "greeting"?: n (a new chat opens with greeting n: 0 first message, n alternate n)}
 *                 | {"type": "regenerate", "turn"} | {"type": "answer"}
 *                 | {"type": "stop"}   (answer: reply to the last message, the person's, left unanswered)
 *       server -> {"type": "delta", "text"}* then {"type": "done", "turn", "reply", "context", "notices"}
 *                 or {"type": "error", "code", "message"}; done also has message, reply_message, swipes
 * Only one reply streams at a time (sending is disabled meanwhile; Stop ends it), so frames need no id.
 * Every message has copy / branch / edit / delete (a person's messages only for their author);
 * persona replies have (i) (the request inspector); the last one has ‹ n/m › (its alternatives,
 * ← / → keys) and ↻. A last message of the person's with no reply (a failed turn, or a server that
 * stopped mid-reply) has ↻ too, and → answers it; the session's ``awaiting`` asks for it at once.
 * Safety: text is rendered by Hearth.markdown (DOM nodes and text only) or set with textContent.
 */
'use strict';
(() => {
  const H = window.Hearth;
  const LIMIT = 16000;                 // server limit, in Unicode code points (Python len)
  const COUNTER_FROM = LIMIT - 1000;   // show the counter when this close to the limit
  const NEW_ROOM = '__new__';
  const $ = (sel) => document.querySelector(sel);
  const els = {
    list: $('#messages'), form: $('#composer-form'), composer: $('#composer'),
    send: $('#send'), counter: $('#counter'), status: $('#status'),
    name: $('#persona-name'), badge: $('#offline-badge'), picker: $('#persona-select'),
    rooms: $('#room-select'), account: $('#account-button'), stop: $('#stop'),
    branches: $('#branch-select'), avatar: $('#persona-avatar'),
    attach: $('#attach'), attachInput: $('#attach-input'), tray: $('#attachments'),
    attachError: $('#attach-error'),
  };
  // Pictures (the server checks the same): PNG, JPEG, GIF or WebP by their first bytes, 5 MB each, 4 a message.
  const PICTURES = { max: 4, bytes: 5 * 1024 * 1024, types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] };
  const raw = new WeakMap();           // message element -> its text as written (copy, edit)
  const coarse = window.matchMedia('(pointer: coarse)');
  const state = {
    session: null,     // last /app/session payload
    userName: 'You',   // author name for messages typed here
    greetings: [], greetingAt: 0, // a new chat's greeting and its alternates; the one shown
    ws: null, online: false, retries: 0, retryTimer: 0,
    pending: null,     // {bubble, userEl?, prevText?, prevTurn?} while a reply streams
    resync: false,     // a stream was cut by a disconnect: reload history on reconnect
    answerOnOpen: false, // the session said the last message awaits its reply: ask once connected
    loadError: null,   // the error line shown while /app/session keeps failing
    pictures: [],      // [{media_type, data (base64), url (object URL for the thumbnail), name}] to send
  };
  const make = H.make;

  // ---- rendering -----------------------------------------------------------------------
  const textOf = (bubble) => bubble.querySelector('.msg-text');
  const nearBottom = () => els.list.scrollHeight - els.list.scrollTop - els.list.clientHeight < 120;
  const scrollDown = () => { els.list.scrollTop = els.list.scrollHeight; };

  function setText(el, text) {
    raw.set(el, text ?? '');
    H.markdown(textOf(el), text ?? '');
  }

  // Thumbnails of the pictures a message carries; a stored one shows its type and size.
  function picturesOf(pictures) {
    const box = make('div', 'msg-images');
    for (const p of pictures) {
      if (p.url) {
        const img = make('img');
        img.src = p.url;
        img.alt = p.name ? `Picture: ${p.name}` : 'Picture';
        box.append(img);
      } else {
        const size = p.width && p.height ? ` ${p.width}×${p.height}` : '';
        box.append(make('span', 'picture-label', `🖼 picture${size}`));
      }
    }
    return box;
  }

  function addMessage({ role, name, text, sentAt, turn, id, greeting, mine, swipes, pictures }) {
    const el = make('div', 'msg');
    el.dataset.role = role === 'user' ? 'user' : 'assistant';
    if (turn) el.dataset.turn = turn;
    if (id) el.dataset.id = id;
    if (greeting) el.dataset.greeting = 'true';
    if (mine) el.dataset.mine = 'true';
    if (Array.isArray(swipes) && swipes.length > 1) el.dataset.swipes = JSON.stringify(swipes);
    const meta = make('div', 'msg-meta');
    const time = make('time', 'msg-time');
    H.formatTime(time, sentAt ? new Date(sentAt) : new Date());
    meta.append(make('span', 'msg-author', name), time);
    el.append(meta);
    if (Array.isArray(pictures) && pictures.length) el.append(picturesOf(pictures));
    el.append(make('div', 'msg-text'));
    setText(el, text);
    el.append(actionsFor(el));
    els.list.append(el);
    updateInspect(el);
    scrollDown();
    return el;
  }

  function setId(el, id) {
    if (!el || !id || el.dataset.id === id) return;
    el.dataset.id = id;
    el.querySelector('.msg-actions').replaceWith(actionsFor(el));
  }

  // copy · edit · delete · branch under a message (edit and delete: one's own, and the persona's)
  function actionsFor(el) {
    const bar = make('div', 'msg-actions');
    const add = (cls, label, title) => {
      const b = H.button(label, `act ${cls}`);
      b.title = title;
      b.setAttribute('aria-label', title);
      bar.append(b);
    };
    add('act-copy', 'Copy', 'Copy this message');
    if (el.dataset.mine) {
      add('act-edit', 'Edit', 'Edit your message');
      add('act-delete', 'Delete', 'Delete your message (and the reply to it)');
    } else if (el.dataset.role === 'assistant' && el.dataset.id) {
      add('act-edit', 'Edit', 'Edit this reply (the next reply reads your version)');
      add('act-delete', 'Delete', 'Delete this reply');
    }
    if (el.dataset.id) add('act-branch', 'Branch', 'Start a new chat from here (memories stay shared)');
    return bar;
  }

  // (i) on every persona reply that has a turn: opens the request inspector.
  function updateInspect(el) {
    const has = el.querySelector('.inspect');
    if (el.dataset.role !== 'assistant' || !el.dataset.turn) { if (has) has.remove(); return; }
    if (has) return;
    const btn = make('button', 'inspect', 'i');
    btn.type = 'button';
    btn.title = 'What went into this reply';
    btn.setAttribute('aria-label', 'Inspect this reply');
    el.querySelector('.msg-meta').append(btn);
  }

  function addError(message, code) {
    const el = make('div', 'msg-error', message || 'Something went wrong.');
    if (code) el.dataset.code = code;
    els.list.append(el);
    scrollDown();
    return el;
  }

  const lastMessage = () => { const all = els.list.querySelectorAll('.msg'); return all[all.length - 1]; };
  const swipesOf = (el) => { try { return JSON.parse(el.dataset.swipes || '[]'); } catch { return []; } };

  // A last message of the person's, stored, with no reply after it: ↻ answers it.
  const unanswered = (el) => Boolean(el && el.dataset.role === 'user' && el.dataset.id);

  // A new chat's greeting (not stored yet) with alternates: ‹ n/m › picks the one the chat opens with.
  const choosingGreeting = (el) => Boolean(el && el.dataset.greeting && !el.dataset.id && state.greetings.length > 1);

  function greetingSwipes(last) {
    const row = make('div', 'swipes');
    const at = state.greetingAt;
    const prev = H.button('‹', 'swipe-prev');
    prev.title = 'Previous greeting (←)';
    prev.setAttribute('aria-label', 'Previous greeting');
    prev.disabled = at === 0;
    const next = H.button('›', 'swipe-next');
    next.title = 'Next greeting (→)';
    next.setAttribute('aria-label', 'Next greeting');
    next.disabled = at === state.greetings.length - 1;
    row.append(prev, make('span', 'swipe-count', `${at + 1}/${state.greetings.length}`), next);
    last.append(row);
  }

  // ‹ n/m › and ↻ live only on the last message: a persona reply with a turn, or an unanswered one.
  function updateRegen() {
    els.list.querySelectorAll('.regen, .swipes').forEach((b) => b.remove());
    const last = lastMessage();
    if (!last || state.pending) return;
    if (choosingGreeting(last)) { greetingSwipes(last); return; }
    if (unanswered(last)) {
      const row = make('div', 'swipes');
      const btn = make('button', 'regen', '↻');
      btn.type = 'button';
      btn.dataset.answer = 'true';
      btn.title = 'No reply yet: answer this message (→)';
      btn.setAttribute('aria-label', 'Answer this message');
      btn.disabled = !canSend();
      row.append(btn);
      last.append(row);
      return;
    }
    if (last.dataset.role !== 'assistant' || !last.dataset.turn) return;
    const row = make('div', 'swipes');
    const turns = swipesOf(last);
    const at = turns.indexOf(last.dataset.turn);
    if (turns.length > 1 && at >= 0) {
      const prev = H.button('‹', 'swipe-prev');
      prev.title = 'Previous version (←)';
      prev.setAttribute('aria-label', 'Previous version of this reply');
      prev.disabled = at === 0 || !canSend();
      const next = H.button('›', 'swipe-next');
      next.title = 'Next version (→)';
      next.setAttribute('aria-label', 'Next version of this reply');
      next.disabled = at === turns.length - 1 || !canSend();
      row.append(prev, make('span', 'swipe-count', `${at + 1}/${turns.length}`), next);
    }
    const btn = make('button', 'regen', '↻');
    btn.type = 'button';
    btn.title = 'Write this reply again (the old one is kept)';
    btn.setAttribute('aria-label', 'Regenerate this reply');
    btn.disabled = !canSend();
    row.append(btn);
    last.append(row);
  }

  function renderRooms(s) {
    const rooms = Array.isArray(s.rooms) ? s.rooms : [];
    els.rooms.hidden = Boolean(s.guest);
    if (s.guest) return;
    const options = rooms.map((r) => new Option(r.title, r.slug, false, r.slug === s.room));
    options.push(new Option('+ New room…', NEW_ROOM));
    els.rooms.replaceChildren(...options);
  }

  function renderBranches(s) {
    const branches = Array.isArray(s.branches) ? s.branches : [];
    els.branches.hidden = !branches.length && !s.branch;
    const options = [new Option('Original chat', '', false, !s.branch)];
    for (const b of branches) options.push(new Option(`↳ ${b.title}`, b.id, false, b.id === s.branch));
    els.branches.replaceChildren(...options);
    $('#branch-rename').hidden = !s.branch;
  }

  function renderAvatar(persona) {
    els.avatar.replaceChildren();
    if (persona.avatar) {
      const img = document.createElement('img');
      img.src = persona.avatar;                  // a same-origin /app URL from the server
      img.alt = '';
      els.avatar.append(img);
    } else {
      els.avatar.textContent = (persona.name || '?').trim().charAt(0).toUpperCase();
    }
  }

  function render(s) {
    const persona = s.persona || { id: 'default', name: 'Hearth' };
    els.name.textContent = persona.name;
    renderAvatar(persona);
    renderBranches(s);
    $('#branch-badge').hidden = !s.branch;
    document.title = `${persona.name} · Hearth`;
    const model = s.model || {};
    els.badge.hidden = !model.offline;
    els.badge.textContent = model.label || 'Offline model';
    els.badge.title = model.offline ? `Replies come from ${model.label || 'an offline model'}, not Claude` : '';
    const personas = Array.isArray(s.personas) && s.personas.length ? s.personas : [persona];
    els.picker.replaceChildren(...personas.map(
      (p) => new Option(p.private ? `${p.name} (yours)` : p.name, p.id, false, p.id === persona.id)));
    renderRooms(s);
    els.account.textContent = s.guest ? 'Sign in' : s.username;
    els.account.dataset.user = s.guest ? '' : s.username;
    els.account.title = s.guest ? 'Sign in or create an account' : `Signed in as ${s.username}`;
    els.list.replaceChildren();
    state.loadError = null;
    const messages = Array.isArray(s.messages) ? s.messages : [];
    const lastUser = messages.filter((m) => m.role === 'user' && m.name).pop();
    state.userName = lastUser ? lastUser.name : (s.guest ? 'You' : s.username);
    state.greetings = !messages.length && Array.isArray(persona.greetings) ? persona.greetings : [];
    state.greetingAt = 0;
    if (!messages.length && persona.greeting) {
      addMessage({ role: 'assistant', name: persona.name, text: persona.greeting, greeting: true });
    }
    for (const m of messages) {
      const fallback = m.role === 'user' ? state.userName : persona.name;
      addMessage({
        role: m.role, name: m.name || fallback, text: m.text, sentAt: m.sent_at, turn: m.turn, id: m.id,
        greeting: m.id === 'm0' && m.role === 'assistant', mine: m.mine, swipes: m.swipes,
        pictures: m.images,
      });
    }
  }

  // ---- controls ------------------------------------------------------------------------
  const canSend = () => Boolean(state.online && !state.pending && state.ws && state.ws.readyState === WebSocket.OPEN);

  function refreshControls() {
    els.send.disabled = !canSend();
    els.stop.hidden = !state.pending;
    els.picker.disabled = Boolean(state.pending) || !state.session;
    els.rooms.disabled = Boolean(state.pending) || !state.session;
    els.branches.disabled = Boolean(state.pending) || !state.session;
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
    const pictures = state.pictures;
    if (!text && !pictures.length) return;
    if (updateCounter()) {
      els.counter.textContent = `Message too long: ${countChars(text).toLocaleString()} characters, ` +
        `the limit is ${LIMIT.toLocaleString()}. It was not sent.`;
      els.composer.focus();
      return;
    }
    if (!canSend()) return;
    const persona = state.session.persona || {};
    const frame = { type: 'message', text, persona: persona.id };
    if (choosingGreeting(lastMessage()) && state.greetingAt) frame.greeting = state.greetingAt;
    if (pictures.length) frame.images = pictures.map((p) => ({ media_type: p.media_type, data: p.data }));
    state.ws.send(JSON.stringify(frame));
    const userEl = addMessage({ role: 'user', name: state.userName, text, mine: true, pictures });
    state.pictures = [];
    renderTray();
    els.composer.value = '';
    autosize();
    updateCounter();
    startReply(userEl);
  }

  // the last message is the person's and has no reply: ask for one (a server restart, a failed turn)
  function answerLast() {
    const last = lastMessage();
    if (!canSend() || !unanswered(last)) return false;
    state.ws.send(JSON.stringify({ type: 'answer' }));
    startReply(last);
    return true;
  }

  function regenerate(bubble) {
    if (!canSend() || !bubble || !bubble.dataset.turn) return;
    state.ws.send(JSON.stringify({ type: 'regenerate', turn: bubble.dataset.turn }));
    state.pending = { bubble, prevText: raw.get(bubble) ?? '', prevTurn: bubble.dataset.turn };
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
        setText(bubble, p.prevText);
        bubble.dataset.turn = p.prevTurn;
      } else if (!textOf(bubble).textContent) {
        bubble.remove();                         // nothing streamed: no empty bubble
      } else {
        bubble.dataset.incomplete = 'true';      // keep the partial text, marked as cut off
      }
    }
    if (p && p.stopped) addError('Stopped. Nothing was written yet, so no reply was kept.', 'stopped');
    else addError(errorMessage, code);
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
      if (typeof frame.reply === 'string') setText(bubble, frame.reply);
      else setText(bubble, textOf(bubble).textContent);
      if (frame.turn) {
        bubble.dataset.turn = frame.turn;
        if (userEl) userEl.dataset.turn = frame.turn;
        updateInspect(bubble);
      }
      if (userEl && frame.message) setId(userEl, frame.message);
      if (frame.reply_message) setId(bubble, frame.reply_message);
      const turns = frame.swipes && Array.isArray(frame.swipes.turns) ? frame.swipes.turns : [];
      if (turns.length > 1) bubble.dataset.swipes = JSON.stringify(turns); else delete bubble.dataset.swipes;
      delete bubble.dataset.streaming;
      state.pending = null;
      refreshControls();
      scrollDown();
      // DEC-11: what the reply saved or forgot, as visible as the space wants it
      for (const notice of Array.isArray(frame.notices) ? frame.notices : []) H.toast(notice, 'memory');
      H.emit('done', frame);
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
      if (state.resync) { state.resync = false; loadSession(); }
      else if (state.answerOnOpen) { state.answerOnOpen = false; answerLast(); }
    };
    ws.onmessage = (ev) => {
      if (ws !== state.ws) return;
      let frame;
      try { frame = JSON.parse(ev.data); } catch { return; }
      if (frame && typeof frame === 'object') onFrame(frame);
    };
    ws.onclose = (ev) => {
      if (ws !== state.ws) return;              // a socket we replaced on purpose
      state.ws = null;
      if (ev.code === 4401) {                   // this session was signed out (here or elsewhere)
        state.pending = null;
        setOnline(false);
        loadSession();                          // a guest now: the guest's chat and a new socket
        return;
      }
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

  const params = () => new URLSearchParams(location.search);

  function setParam(name, value) {
    const url = new URL(location.href);
    if (value) url.searchParams.set(name, value); else url.searchParams.delete(name);
    history.replaceState(null, '', url);
  }

  async function loadSession() {
    const qs = new URLSearchParams();
    for (const key of ['persona', 'room', 'branch']) if (params().get(key)) qs.set(key, params().get(key));
    const query = qs.toString() ? `?${qs}` : '';
    let session;
    try {
      session = await H.api('GET', `/app/session${query}`);
      if (!session || !session.chat) throw new Error('the session has no chat');
    } catch (err) {
      if (err.code === 'room_not_found') { setParam('room', null); return loadSession(); }
      if (err.code === 'branch_not_found') { setParam('branch', null); return loadSession(); }
      if (err.code === 'persona_not_found') { setParam('persona', null); return loadSession(); }
      const text = `Could not load the chat (${err.message}). Retrying…`;
      if (state.loadError && state.loadError.isConnected) state.loadError.textContent = text;
      else state.loadError = addError(text, 'session_unavailable');
      setTimeout(loadSession, 3000);
      return;
    }
    const chatChanged = !state.session || state.session.chat !== session.chat;
    state.session = session;
    H.state.session = session;
    render(session);
    if (chatChanged) {
      const old = state.ws;
      state.ws = null;                           // its onclose is ignored from now on
      if (old) old.close();
      state.pending = null;
      state.retries = 0;
      connect();
    }
    state.answerOnOpen = Boolean(session.awaiting);
    if (state.answerOnOpen && canSend()) { state.answerOnOpen = false; answerLast(); }
    refreshControls();
    H.emit('session', session);
  }
  H.reloadSession = loadSession;

  // ---- rooms ---------------------------------------------------------------------------
  const roomDialog = $('#room-dialog');
  async function createRoom(e) {
    e.preventDefault();
    const name = $('#room-name').value.trim();
    try {
      const made = await H.api('POST', '/app/rooms', { name });
      roomDialog.close();
      setParam('room', made.room.slug);
      setParam('branch', null);
      await loadSession();
      H.toast(`Room “${made.room.title}” created.`, 'ok');
    } catch (err) {
      H.showError($('#room-error'), err);
    }
  }

  // ---- wiring --------------------------------------------------------------------------
  els.form.addEventListener('submit', (e) => { e.preventDefault(); sendMessage(); });
  // Enter sends, Shift+Enter adds a line; on a phone (coarse pointer) the keyboard's return adds
  // a line and the Send button sends.
  const phoneKeys = () => coarse.matches;
  function syncEnterHint() {
    els.composer.enterKeyHint = phoneKeys() ? 'enter' : 'send';
    $('#composer-hint').textContent = 'Enter to send · Shift+Enter for a new line';
  }
  syncEnterHint();
  coarse.addEventListener('change', syncEnterHint);
  els.composer.addEventListener('keydown', (e) => {
    // isComposing / 229: Enter that confirms an IME candidate (e.g. Vietnamese, CJK) must not send.
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229 && !phoneKeys()) {
      e.preventDefault();
      sendMessage();
    }
  });
  els.stop.addEventListener('click', () => {
    if (!state.pending || !state.ws) return;
    state.pending.stopped = true;
    state.ws.send(JSON.stringify({ type: 'stop' }));
  });

  // ---- pictures: attach button, paste, drag and drop -------------------------------------
  const MAGIC = [
    ['image/png', [0x89, 0x50, 0x4e, 0x47]], ['image/jpeg', [0xff, 0xd8, 0xff]], ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ];
  function sniff(bytes) {
    for (const [kind, magic] of MAGIC) if (magic.every((b, i) => bytes[i] === b)) return kind;
    const ascii = (from, to) => String.fromCharCode(...bytes.slice(from, to));
    return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP' ? 'image/webp' : null;
  }

  function attachError(message) {
    els.attachError.textContent = message || '';
    els.attachError.hidden = !message;
  }

  function renderTray() {
    els.tray.replaceChildren(...state.pictures.map((p, i) => {
      const thumb = make('span', 'thumb');
      const img = make('img');
      img.src = p.url;
      img.alt = `Picture to send: ${p.name}`;
      const remove = make('button', '', '×');
      remove.type = 'button';
      remove.setAttribute('aria-label', `Remove ${p.name}`);
      remove.addEventListener('click', () => { state.pictures.splice(i, 1); renderTray(); });
      thumb.append(img, remove);
      return thumb;
    }));
    els.tray.hidden = !state.pictures.length;
  }

  const readBytes = (file) => new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(file);
  });

  function base64Of(bytes) {
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  }

  async function addPictures(files) {
    attachError('');
    for (const file of files) {
      const name = file.name || 'picture';
      if (state.pictures.length >= PICTURES.max) {
        attachError(`A message may carry at most ${PICTURES.max} pictures; “${name}” was left out.`);
        break;
      }
      if (!PICTURES.types.includes(file.type)) {
        attachError(`“${name}” is not a PNG, JPEG, GIF or WebP picture.`);
        continue;
      }
      if (file.size > PICTURES.bytes) {
        attachError(`“${name}” is ${(file.size / 1048576).toFixed(1)} MB; the limit is 5 MB per picture.`);
        continue;
      }
      const bytes = await readBytes(file);
      const kind = sniff(bytes);
      if (!kind) {
        attachError(`“${name}” is not a PNG, JPEG, GIF or WebP picture.`);
        continue;
      }
      state.pictures.push({ media_type: kind, data: base64Of(bytes), url: URL.createObjectURL(file), name });
    }
    renderTray();
  }

  els.attach.addEventListener('click', () => els.attachInput.click());
  els.attachInput.addEventListener('change', async () => {
    await addPictures([...els.attachInput.files]);
    els.attachInput.value = '';
    els.composer.focus();
  });
  els.composer.addEventListener('paste', (e) => {
    const files = [...(e.clipboardData ? e.clipboardData.files : [])];
    if (!files.length) return;
    e.preventDefault();
    addPictures(files);
  });
  els.form.addEventListener('dragover', (e) => {
    if (![...(e.dataTransfer ? e.dataTransfer.types : [])].includes('Files')) return;
    e.preventDefault();
    els.form.classList.add('dropping');
  });
  els.form.addEventListener('dragleave', () => els.form.classList.remove('dropping'));
  els.form.addEventListener('drop', (e) => {
    els.form.classList.remove('dropping');
    const files = [...(e.dataTransfer ? e.dataTransfer.files : [])];
    if (!files.length) return;
    e.preventDefault();
    addPictures(files);
  });

  // ---- message actions -----------------------------------------------------------------
  const chatUrl = () => `/app/chats/${encodeURIComponent(state.session.chat)}`;

  async function copyMessage(el, btn) {
    const text = raw.get(el) ?? textOf(el).textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = H.make('textarea', 'visually-hidden', text);   // clipboard API refused: old way
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    btn.textContent = 'Copied';
    setTimeout(() => { btn.textContent = 'Copy'; }, 1500);
  }

  function editMessage(el) {
    if (el.querySelector('.msg-edit')) return;
    const form = make('form', 'msg-edit');
    const area = make('textarea', 'msg-edit-text');
    area.value = raw.get(el) ?? '';
    area.rows = Math.min(10, Math.max(2, area.value.split('\n').length));
    area.setAttribute('aria-label', el.dataset.mine ? 'Edit your message' : 'Edit this reply');
    const err = make('p', 'form-error');
    err.hidden = true;
    err.setAttribute('role', 'alert');
    const save = make('button', 'primary', 'Save');
    save.type = 'submit';
    const cancel = H.button('Cancel', null, () => { form.remove(); textOf(el).hidden = false; });
    form.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); cancel.click(); } });
    const row = make('div', 'buttons');
    row.append(cancel, save);
    form.append(area, err, row);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        const got = await H.api('PUT', `${chatUrl()}/messages/${encodeURIComponent(el.dataset.id)}`, { text: area.value });
        setText(el, got.message.text);
        form.remove();
        textOf(el).hidden = false;
      } catch (error) {
        H.showError(err, error);
      }
    });
    textOf(el).hidden = true;
    textOf(el).after(form);
    area.focus();
  }

  async function deleteMessage(el) {
    const next = el.nextElementSibling;
    const hasReply = el.dataset.role === 'user' && next && next.matches('.msg[data-role="assistant"]');
    const ok = await H.confirm(hasReply
      ? { title: 'Delete this message and its reply?', text: 'Your message and the reply to it are removed from the chat for good.', ok: 'Delete both' }
      : { title: el.dataset.role === 'user' ? 'Delete this message?' : 'Delete this reply?', text: 'It is removed from the chat for good.', ok: 'Delete' });
    if (!ok) return;
    try {
      const got = await H.api('DELETE', `${chatUrl()}/messages/${encodeURIComponent(el.dataset.id)}`);
      for (const id of Array.isArray(got.also) ? got.also : []) {
        els.list.querySelectorAll('.msg[data-id]').forEach((m) => { if (m.dataset.id === id) m.remove(); });
      }
      el.remove();
      refreshControls();
    } catch (err) {
      addError(err.message, err.code);
    }
  }

  async function branchFrom(el) {
    try {
      // named by number and local time ("Branch 2 · 14:05"), not by the message's first words
      const n = (Array.isArray(state.session.branches) ? state.session.branches.length : 0) + 1;
      const at = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      const got = await H.api('POST', `${chatUrl()}/branches`, { message: el.dataset.id, title: `Branch ${n} · ${at}` });
      setParam('branch', got.branch.id);
      await loadSession();
      H.toast('New branch: the chat up to that message. Memories stay shared.', 'ok');
    } catch (err) {
      addError(err.message, err.code);
    }
  }

  async function swipe(step) {
    const last = lastMessage();
    if (choosingGreeting(last)) {
      const to = state.greetingAt + step;
      if (to < 0 || to >= state.greetings.length) return;
      state.greetingAt = to;
      setText(last, state.greetings[to]);
      updateRegen();
      return;
    }
    if (step > 0 && unanswered(last)) { answerLast(); return; }
    if (!last || last.dataset.role !== 'assistant' || !canSend()) return;
    const turns = swipesOf(last);
    const at = turns.indexOf(last.dataset.turn);
    if (step > 0 && (turns.length < 2 || at === turns.length - 1)) { regenerate(last); return; }
    const target = turns[at + step];
    if (at < 0 || !target) return;
    try {
      const got = await H.api('POST', `${chatUrl()}/turns/${encodeURIComponent(target)}/choose`);
      last.dataset.turn = got.message.turn || target;
      setId(last, got.message.id);
      last.dataset.swipes = JSON.stringify(got.swipes.turns);
      setText(last, got.message.text);
      updateRegen();
    } catch (err) {
      addError(err.message, err.code);
    }
  }

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || document.querySelector('dialog[open]')) return;
    const t = e.target;
    const typing = t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if (typing && !(t === els.composer && !els.composer.value)) return;
    e.preventDefault();
    swipe(e.key === 'ArrowLeft' ? -1 : 1);
  });
  els.composer.addEventListener('input', () => { autosize(); updateCounter(); });
  els.list.addEventListener('click', (e) => {
    const regen = e.target.closest('.regen');
    if (regen && regen.dataset.answer) answerLast();
    else if (regen) regenerate(regen.closest('.msg'));
    const act = e.target.closest('.act');
    if (act) {
      const el = act.closest('.msg');
      if (act.classList.contains('act-copy')) copyMessage(el, act);
      else if (act.classList.contains('act-edit')) editMessage(el);
      else if (act.classList.contains('act-delete')) deleteMessage(el);
      else if (act.classList.contains('act-branch')) branchFrom(el);
    }
    // touch screens have no hover: a tap on a message shows its actions (and hides the others')
    const tapped = e.target.closest('.msg');
    if (tapped && !e.target.closest('button, a, textarea, form')) {
      const on = tapped.dataset.selected !== 'true';
      els.list.querySelectorAll('.msg[data-selected]').forEach((m) => delete m.dataset.selected);
      if (on) tapped.dataset.selected = 'true';
    }
    if (e.target.closest('.swipe-prev')) swipe(-1);
    if (e.target.closest('.swipe-next')) swipe(1);
    const inspect = e.target.closest('.inspect');
    if (inspect) H.emit('inspect', { chat: state.session.chat, turn: inspect.closest('.msg').dataset.turn });
  });
  // the persona is chosen per room: each room remembers (in this browser) who talked there last
  const roomKey = (room) => `hearth:persona:${(state.session && state.session.username) || 'guest'}:${room}`;
  const remember = (room, persona) => { try { localStorage.setItem(roomKey(room), persona); } catch { /* private mode */ } };
  const recall = (room) => { try { return localStorage.getItem(roomKey(room)); } catch { return null; } };
  H.on('session', (s) => remember(s.room, s.persona.id));
  els.picker.addEventListener('change', () => {
    setParam('persona', els.picker.value === 'default' ? null : els.picker.value);
    setParam('branch', null);
    loadSession();
  });
  els.branches.addEventListener('change', () => {
    setParam('branch', els.branches.value || null);
    loadSession();
  });
  els.rooms.addEventListener('change', () => {
    if (els.rooms.value === NEW_ROOM) {
      els.rooms.value = state.session.room;
      $('#room-name').value = '';
      H.showError($('#room-error'), null);
      roomDialog.showModal();
      return;
    }
    setParam('room', els.rooms.value === 'main' ? null : els.rooms.value);
    const persona = recall(els.rooms.value);
    setParam('persona', persona && persona !== 'default' ? persona : null);
    setParam('branch', null);
    loadSession();
  });
  $('#room-form').addEventListener('submit', createRoom);

  // ---- renaming the branch one is in ----------------------------------------------------
  const branchDialog = $('#branch-dialog');
  $('#branch-rename').addEventListener('click', () => {
    const s = state.session;
    const current = (s.branches || []).find((b) => b.id === s.branch);
    $('#branch-name').value = current ? current.title : '';
    H.showError($('#branch-error'), null);
    branchDialog.showModal();
  });
  $('#branch-cancel').addEventListener('click', () => branchDialog.close());
  $('#branch-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const got = await H.api('PUT', `${chatUrl()}/branches/${encodeURIComponent(state.session.branch)}`,
        { title: $('#branch-name').value });
      branchDialog.close();
      await loadSession();
      H.toast(`Branch renamed “${got.branch.title}”.`, 'ok');
    } catch (err) {
      H.showError($('#branch-error'), err);
    }
  });

  // ---- chat files: export this chat, import one into a new room ---------------------------
  $('#export-chat').addEventListener('click', () => {
    const link = H.make('a', 'visually-hidden', 'export');
    link.href = `${chatUrl()}/export?format=st`;
    link.download = '';
    document.body.append(link);
    link.click();
    link.remove();
  });
  $('#import-chat').addEventListener('click', () => {
    if (state.session.guest) { H.toast('Sign in to import chats.', 'error'); return; }
    $('#import-input').click();
  });
  $('#import-input').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    e.target.value = '';
    if (!file) return;
    const format = file.name.toLowerCase().endsWith('.jsonl') ? 'st' : 'hearth';
    const room = file.name.replace(/\.(hearth\.)?jsonl?$/i, '').slice(0, 40) || 'Imported chat';
    const persona = state.session.persona.id;
    const qs = new URLSearchParams({ format, room, persona });
    try {
      const got = await H.api('POST', `/app/chats/import?${qs}`, undefined, { raw: file, type: 'application/octet-stream' });
      setParam('room', got.room.slug);
      setParam('branch', null);
      await loadSession();
      H.toast(`Imported ${got.messages} messages into room “${got.room.title}”.`, 'ok');
    } catch (err) {
      H.toast(`Import failed: ${err.message}`, 'error', 8000);
    }
  });

  // ---- the phone header's menu: rooms, branches and tools behind ☰ ------------------------
  const top = $('#top');
  const menuButton = $('#menu-button');
  function setMenu(open) {
    top.dataset.menu = open ? 'open' : 'closed';
    menuButton.setAttribute('aria-expanded', String(open));
  }
  menuButton.addEventListener('click', (e) => { e.stopPropagation(); setMenu(top.dataset.menu !== 'open'); });
  $('#top-menu').addEventListener('click', (e) => { if (e.target.closest('button')) setMenu(false); });
  $('#top-menu').addEventListener('change', () => setMenu(false));
  document.addEventListener('click', (e) => { if (!top.contains(e.target)) setMenu(false); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') setMenu(false); });
  $('#room-cancel').addEventListener('click', () => roomDialog.close());
  document.addEventListener('click', (e) => {      // a tap elsewhere hides a message's actions
    if (!e.target.closest || e.target.closest('.msg')) return;
    els.list.querySelectorAll('.msg[data-selected]').forEach((m) => delete m.dataset.selected);
  });
  window.addEventListener('online', () => { if (!state.ws && state.session) connect(); });

  loadSession();
  els.composer.focus();
})();
