/*
 * Sign in / create account, and the account dialog (Telegram /link code, sign out).
 *   POST /app/signin | /app/signup {username, password} -> sets the session cookie
 *   POST /app/link-code -> {code, command, expires_in}
 *   POST /app/signout {everywhere?}
 *   GET|PUT|DELETE /app/me/persona {name, description} -> {user, name, description, set}
 *   POST /app/guest-chat/ticket (as the guest, before) -> {ticket, has_chat}
 *   POST /app/guest-chat/move {ticket} (signed in, after) -> {room, moved}
 * A guest's chat moves into the account at sign-up; at sign-in it moves when the person says so.
 * After any of them the page reloads its session (a new chat, a new CSRF token).
 */
'use strict';
(() => {
  const H = window.Hearth;
  const $ = (sel) => document.querySelector(sel);
  const dlg = $('#auth-dialog');
  const account = $('#account-dialog');
  const els = {
    form: $('#auth-form'), title: $('#auth-title'), user: $('#auth-username'), pass: $('#auth-password'),
    error: $('#auth-error'), submit: $('#auth-submit'), tabIn: $('#auth-tab-signin'), tabUp: $('#auth-tab-signup'),
  };
  let mode = 'signin';

  function setMode(next) {
    mode = next;
    const up = mode === 'signup';
    els.title.textContent = up ? 'Create an account' : 'Sign in';
    els.submit.textContent = up ? 'Create account' : 'Sign in';
    els.tabIn.setAttribute('aria-selected', String(!up));
    els.tabUp.setAttribute('aria-selected', String(up));
    els.pass.autocomplete = up ? 'new-password' : 'current-password';
    H.showError(els.error, null);
  }

  function openAuth(next = 'signin') {
    setMode(next);
    els.pass.value = '';
    dlg.showModal();
    els.user.focus();
  }

  async function submit(e) {
    e.preventDefault();
    const username = els.user.value.trim();
    const password = els.pass.value;
    if (!username || !password) {
      H.showError(els.error, new Error('Enter a username and a password.'));
      return;
    }
    els.submit.disabled = true;
    try {
      const s = H.state.session;
      let claim = null;
      if (s && s.guest) claim = await H.api('POST', '/app/guest-chat/ticket').catch(() => null);
      await H.api('POST', `/app/${mode}`, { username, password });
      await H.reloadSession();                   // the account's session and CSRF token
      let moved = null;
      if (claim && claim.has_chat) {
        const bring = mode === 'signup' || await H.confirm({
          title: 'Bring your guest chat?',
          text: 'You chatted here before signing in. Move that conversation into your account (as a room “Guest chat”)?',
          ok: 'Bring it', cancel: 'Leave it',
        });
        if (bring) moved = await H.api('POST', '/app/guest-chat/move', { ticket: claim.ticket });
      }
      dlg.close();
      if (moved && moved.room && moved.room !== 'main') {
        const url = new URL(location.href);
        url.searchParams.set('room', moved.room);
        history.replaceState(null, '', url);
      }
      if (moved) await H.reloadSession();
      const kept = moved && moved.moved ? ' Your guest chat came along.' : '';
      H.toast(mode === 'signup' ? `Welcome, ${username}!${kept}` : `Signed in as ${username}.${kept}`, 'ok');
      H.emit('signed-in', username);
    } catch (err) {
      H.showError(els.error, err);
    } finally {
      els.submit.disabled = false;
    }
  }

  async function linkCode() {
    try {
      const got = await H.api('POST', '/app/link-code');
      const el = $('#link-code');
      el.replaceChildren(
        H.make('span', 'code-value', got.command),
        H.make('span', 'hint', ` — valid for ${Math.round(got.expires_in / 60)} minutes, once.`),
      );
      el.hidden = false;
    } catch (err) {
      H.toast(err.message, 'error');
    }
  }

  async function signOut(everywhere) {
    try {
      await H.api('POST', '/app/signout', { everywhere });
      account.close();
      const url = new URL(location.href);
      url.searchParams.delete('room');
      history.replaceState(null, '', url);
      await H.reloadSession();
      H.toast(everywhere ? 'Signed out on every device.' : 'Signed out.', 'ok');
    } catch (err) {
      H.toast(err.message, 'error');
    }
  }

  function showMe(me) {
    $('#me-name').value = me.name;
    $('#me-description').value = me.description;
    H.showError($('#me-error'), null);
  }

  async function loadMe() {
    try {
      showMe(await H.api('GET', '/app/me/persona'));
    } catch (err) {
      H.showError($('#me-error'), err);
    }
  }

  async function saveMe(e) {
    e.preventDefault();
    const body = { name: $('#me-name').value, description: $('#me-description').value };
    $('#me-save').disabled = true;
    try {
      const me = await H.api('PUT', '/app/me/persona', body);
      showMe(me);
      H.toast(`Saved: the characters call you ${me.name}.`, 'ok');
    } catch (err) {
      H.showError($('#me-error'), err);
    } finally {
      $('#me-save').disabled = false;
    }
  }

  async function resetMe() {
    try {
      showMe(await H.api('DELETE', '/app/me/persona'));
      H.toast('Your persona is reset: the characters use your username.', 'ok');
    } catch (err) {
      H.showError($('#me-error'), err);
    }
  }

  $('#account-button').addEventListener('click', () => {
    const s = H.state.session;
    if (!s || s.guest) { openAuth('signin'); return; }
    $('#account-name').textContent = s.username;
    $('#link-code').hidden = true;
    account.showModal();
    loadMe();
  });
  $('#me-form').addEventListener('submit', saveMe);
  $('#me-reset').addEventListener('click', resetMe);
  document.addEventListener('click', (e) => {
    const opener = e.target.closest('[data-open="auth"]');
    if (opener) openAuth('signin');
  });
  els.tabIn.addEventListener('click', () => setMode('signin'));
  els.tabUp.addEventListener('click', () => setMode('signup'));
  els.form.addEventListener('submit', submit);
  $('#auth-cancel').addEventListener('click', () => dlg.close());
  $('#link-code-button').addEventListener('click', linkCode);
  $('#signout').addEventListener('click', () => signOut(false));
  $('#signout-everywhere').addEventListener('click', () => signOut(true));
  $('#account-close').addEventListener('click', () => account.close());
})();
