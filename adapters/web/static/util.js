/*
 * Hearth page helpers shared by the other scripts (plain script, no build step).
 *
 * window.Hearth:
 *   state.session        the last GET /app/session payload (user, guest, chat, csrf, ...)
 *   on(name, fn) / emit(name, detail)   page events: 'session', 'done', 'inspect', 'signed-in'
 *   api(method, url, body?, {raw, type})  fetch JSON; sends X-CSRF-Token on state changes;
 *                        throws Error{status, code, message} with the API's error body
 *   make(tag, cls, text) an element whose text is set with textContent (never HTML)
 *   toast(text, kind)    a short notice (DEC-11 memory notices, saves), shown above any open dialog
 *   confirm({title, text, ok, cancel})  -> Promise<boolean>
 *   formatTime(el, date) fills a <time> element
 * Safety: every piece of user, model or file text is set with textContent / text nodes.
 */
'use strict';
(() => {
  const bus = new EventTarget();
  const H = {
    state: { session: null },
    on(name, fn) { bus.addEventListener(name, (e) => fn(e.detail)); },
    emit(name, detail) { bus.dispatchEvent(new CustomEvent(name, { detail })); },
    reloadSession: async () => {},
  };

  H.make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text != null) el.textContent = String(text);
    return el;
  };

  // A small label ("pinned", "edited"...), with an optional explanation on hover.
  H.tag = (text, cls, title) => {
    const el = H.make('span', `tag ${cls}`, text);
    if (title) el.title = title;
    return el;
  };

  H.button = (label, cls, onClick) => {
    const b = H.make('button', cls, label);
    b.type = 'button';
    if (onClick) b.addEventListener('click', onClick);
    return b;
  };

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function request(method, url, body, opts) {
    const headers = { Accept: 'application/json' };
    const session = H.state.session;
    if (method !== 'GET' && session && session.csrf) headers['X-CSRF-Token'] = session.csrf;
    let payload;
    if (opts.raw !== undefined) {
      payload = opts.raw;
      headers['Content-Type'] = opts.type || 'application/octet-stream';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(url, { method, headers, body: payload, credentials: 'same-origin' });
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      const err = (data && data.error) || {};
      throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || `HTTP ${res.status}`);
    }
    return data;
  }

  H.api = async (method, url, body, opts = {}) => {
    try {
      return await request(method, url, body, opts);
    } catch (err) {
      // a stale CSRF token (the session changed in another tab): reload the session once, retry
      if (err instanceof ApiError && err.code === 'csrf_failed' && !opts.retried) {
        await H.reloadSession();
        return request(method, url, body, { ...opts, retried: true });
      }
      throw err;
    }
  };

  // Toasts show above everything: while a modal <dialog> is open (the top layer; the page under it
  // is inert) the toast region moves into that dialog, and back to the page when it closes.
  // Few (2), short (4 s), and click-through, so they never hide a button.
  const topDialog = () => [...document.querySelectorAll('dialog[open]')].filter((d) => d.matches(':modal')).pop();

  function placeToasts(box) {
    const host = topDialog() || document.body;
    if (box.parentElement !== host) host.append(box);
  }

  H.toast = (text, kind = 'info', ms = 4000) => {
    const box = document.getElementById('toasts');
    placeToasts(box);
    const el = H.make('div', `toast toast-${kind}`, text);
    el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    const close = H.button('×', 'toast-close', () => el.remove());
    close.setAttribute('aria-label', 'Dismiss');
    el.append(close);
    box.append(el);
    while (box.children.length > 2) box.firstElementChild.remove();   // keep the newest two
    setTimeout(() => el.remove(), ms);
    return el;
  };

  document.addEventListener('close', (e) => {
    const box = document.getElementById('toasts');
    if (box && e.target instanceof HTMLDialogElement && e.target.contains(box)) placeToasts(box);
  }, true);

  H.confirm = ({ title, text, ok = 'OK', cancel = 'Cancel' }) => new Promise((resolve) => {
    const dlg = document.getElementById('confirm-dialog');
    document.getElementById('confirm-title').textContent = title;
    document.getElementById('confirm-text').textContent = text;
    const okBtn = document.getElementById('confirm-ok');
    const cancelBtn = document.getElementById('confirm-cancel');
    okBtn.textContent = ok;
    cancelBtn.textContent = cancel;
    const done = (value) => {
      okBtn.onclick = null; cancelBtn.onclick = null; dlg.onclose = null;
      if (dlg.open) dlg.close();
      resolve(value);
    };
    okBtn.onclick = () => done(true);
    cancelBtn.onclick = () => done(false);
    dlg.onclose = () => done(false);
    dlg.showModal();
    cancelBtn.focus();
  });

  H.formatTime = (el, date) => {
    if (Number.isNaN(date.getTime())) return;
    const sameDay = date.toDateString() === new Date().toDateString();
    const opts = sameDay ? { hour: '2-digit', minute: '2-digit' }
      : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };
    el.dateTime = date.toISOString();
    el.textContent = date.toLocaleString([], opts);
    el.title = date.toLocaleString();
  };

  H.showError = (el, err) => {
    el.textContent = err ? (err.message || String(err)) : '';
    el.hidden = !err;
  };

  const showModal = HTMLDialogElement.prototype.showModal;
  HTMLDialogElement.prototype.showModal = function showModalWithToasts() {
    showModal.call(this);
    const box = document.getElementById('toasts');
    if (box && box.children.length) placeToasts(box);   // notices already showing stay visible
  };

  // Close a modal dialog by clicking its backdrop.
  document.addEventListener('click', (e) => {
    if (e.target instanceof HTMLDialogElement && e.target.open) {
      const r = e.target.getBoundingClientRect();
      const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      if (!inside) e.target.close();
    }
  });

  window.Hearth = H;
})();
