/*
 * Safe Markdown for chat messages: a small renderer that cannot emit HTML.
 *
 * It builds DOM nodes with createElement / text nodes only (never innerHTML), so any HTML in a
 * model's reply shows as text. Supported: paragraphs and line breaks, # headings, ``` fenced
 * code blocks, `inline code`, **bold**, *italic* / _italic_, ~~strike~~, > quotes, - / * / 1.
 * lists, --- rules, | tables | (GFM: a header row, a |---|:---:| delimiter row, body rows; cells
 * hold inline Markdown) and [links](url) / bare https:// links. A link's href is kept only when it
 * is http:, https: or mailto:; anything else (javascript:, data:, vbscript:...) stays plain text.
 *
 *   Hearth.markdown(el, text)   replaces el's children with the rendered text
 */
'use strict';
(() => {
  const H = window.Hearth;
  const SAFE = new Set(['http:', 'https:', 'mailto:']);

  function safeHref(raw) {
    const url = String(raw || '').trim();
    if (!url || /[\u0000-\u001f\s]/.test(url)) return null;
    let parsed;
    try { parsed = new URL(url, 'https://invalid.invalid/'); } catch { return null; }
    // relative links would point into the app; only absolute http(s)/mailto links are kept
    if (!/^(https?:|mailto:)/i.test(url) || !SAFE.has(parsed.protocol)) return null;
    return parsed.href;
  }

  function link(href, text) {
    const a = document.createElement('a');
    a.href = href;
    a.rel = 'noopener noreferrer nofollow';
    a.target = '_blank';
    a.textContent = text;
    return a;
  }

  // inline: code first (its content is literal), then links, bold, italic, strike, bare URLs
  const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\[([^\]\n]{1,500})\]\(([^)\s]{1,2000})\)|\*\*([^*\n][\s\S]*?)\*\*|(?<!\w)__([^_\n][\s\S]*?)__(?!\w)|~~([^~\n][\s\S]*?)~~|(?<![\w*])\*([^*\s](?:[^*\n]*[^*\s])?)\*(?!\w)|(?<!\w)_([^_\s](?:[^_\n]*[^_\s])?)_(?!\w)|(https?:\/\/[^\s<>()"']+[^\s<>()"'.,;:!?])/;

  function inline(parent, text, depth = 0) {
    let rest = text;
    while (rest) {
      const m = depth > 6 ? null : INLINE.exec(rest);
      if (!m) { appendText(parent, rest); return; }
      if (m.index) appendText(parent, rest.slice(0, m.index));
      if (m[1]) {
        parent.append(H.make('code', null, m[2].replace(/^ (.*) $/, '$1')));
      } else if (m[3] !== undefined) {
        const href = safeHref(m[4]);
        if (href) parent.append(link(href, m[3]));
        else appendText(parent, m[0]);                 // an unsafe link stays text, untouched
      } else if (m[5] !== undefined || m[6] !== undefined) {
        const el = document.createElement('strong');
        inline(el, m[5] ?? m[6], depth + 1);
        parent.append(el);
      } else if (m[7] !== undefined) {
        const el = document.createElement('del');
        inline(el, m[7], depth + 1);
        parent.append(el);
      } else if (m[8] !== undefined || m[9] !== undefined) {
        const el = document.createElement('em');
        inline(el, m[8] ?? m[9], depth + 1);
        parent.append(el);
      } else if (m[10]) {
        const href = safeHref(m[10]);
        if (href) parent.append(link(href, m[10])); else appendText(parent, m[10]);
      }
      rest = rest.slice(m.index + m[0].length);
    }
  }

  function appendText(parent, text) {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (i) parent.append(document.createElement('br'));
      if (line) parent.append(document.createTextNode(line));
    });
  }

  const FENCE = /^\s{0,3}(```+|~~~+)\s*([\w+#.-]*)\s*$/;
  const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const BULLET = /^\s{0,3}([-*+])\s+(.*)$/;
  const NUMBER = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
  const QUOTE = /^\s{0,3}>\s?(.*)$/;
  const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
  const TABLE_ROW = /^\s{0,3}\|?.*\|.*$/;
  const TABLE_RULE = /^\s{0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  // a table row's cells: outer pipes dropped, \| kept as a literal pipe
  function cells(line) {
    let row = line.trim();
    if (row.startsWith('|')) row = row.slice(1);
    if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
    return row.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
  }

  const isTable = (lines, i) => i + 1 < lines.length && TABLE_ROW.test(lines[i])
    && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes('|')
    && cells(lines[i]).length === cells(lines[i + 1]).length;

  function table(parent, lines, i) {
    const head = cells(lines[i]);
    const align = cells(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center'
      : (c.endsWith(':') ? 'right' : (c.startsWith(':') ? 'left' : ''))));
    const el = document.createElement('table');
    const row = (values, tag) => {
      const tr = document.createElement('tr');
      head.forEach((_, n) => {
        const cell = document.createElement(tag);
        if (align[n]) cell.style.textAlign = align[n];
        inline(cell, values[n] ?? '');
        tr.append(cell);
      });
      return tr;
    };
    const thead = document.createElement('thead');
    thead.append(row(head, 'th'));
    const tbody = document.createElement('tbody');
    let j = i + 2;
    while (j < lines.length && lines[j].trim() && lines[j].includes('|')) { tbody.append(row(cells(lines[j]), 'td')); j += 1; }
    el.append(thead, tbody);
    const wrap = H.make('div', 'md-table');                // scrolls sideways on a narrow screen
    wrap.append(el);
    parent.append(wrap);
    return j;
  }

  function blocks(parent, text, depth = 0) {
    const lines = text.replace(/\r\n?/g, '\n').split('\n');
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) { i += 1; continue; }
      const fence = FENCE.exec(line);
      if (fence) {
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) { body.push(lines[i]); i += 1; }
        i += 1;
        const pre = document.createElement('pre');
        const code = H.make('code', null, body.join('\n'));
        if (fence[2]) code.dataset.lang = fence[2];
        pre.append(code);
        parent.append(pre);
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        const el = document.createElement(`h${Math.min(6, heading[1].length + 2)}`);
        inline(el, heading[2]);
        parent.append(el);
        i += 1;
        continue;
      }
      if (isTable(lines, i)) { i = table(parent, lines, i); continue; }
      if (RULE.test(line)) { parent.append(document.createElement('hr')); i += 1; continue; }
      if (QUOTE.test(line) && depth < 4) {
        const body = [];
        while (i < lines.length && QUOTE.test(lines[i])) { body.push(QUOTE.exec(lines[i])[1]); i += 1; }
        const q = document.createElement('blockquote');
        blocks(q, body.join('\n'), depth + 1);
        parent.append(q);
        continue;
      }
      const listKind = BULLET.test(line) ? BULLET : (NUMBER.test(line) ? NUMBER : null);
      if (listKind) {
        const list = document.createElement(listKind === BULLET ? 'ul' : 'ol');
        if (listKind === NUMBER) {
          const start = parseInt(NUMBER.exec(line)[1], 10);
          if (start !== 1) list.start = start;
        }
        while (i < lines.length && listKind.test(lines[i])) {
          const li = document.createElement('li');
          const item = [listKind.exec(lines[i])[2]];
          i += 1;
          while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !listKind.test(lines[i])) {
            item.push(lines[i].trim());
            i += 1;
          }
          inline(li, item.join('\n'));
          list.append(li);
        }
        parent.append(list);
        continue;
      }
      const para = [];
      while (i < lines.length && lines[i].trim() && !FENCE.test(lines[i]) && !HEADING.test(lines[i])
             && !BULLET.test(lines[i]) && !NUMBER.test(lines[i]) && !QUOTE.test(lines[i]) && !RULE.test(lines[i])
             && !isTable(lines, i)) {
        para.push(lines[i]);
        i += 1;
      }
      if (!para.length) { para.push(line); i += 1; }
      const p = document.createElement('p');
      inline(p, para.join('\n'));
      parent.append(p);
    }
  }

  H.markdown = (el, text) => {
    el.replaceChildren();
    blocks(el, String(text ?? ''));
  };
  H.safeHref = safeHref;
})();
