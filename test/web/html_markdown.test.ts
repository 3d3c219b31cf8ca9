/**
 * HTML pages as Markdown (lib/web/html_markdown.ts), on pages shaped as real ones are (documentation
 * with navigation, a page with no main element or heading) and on hostile input: deep nesting,
 * script text hidden in HTML's double-escaped script state, binary garbage, a huge text.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { htmlToMarkdown } from '../../lib/web/html_markdown.ts';

const URL_OF_PAGE = 'https://docs.example.com/guide/page/index.html';

const DOC = `<!doctype html><html><head><title>Page</title><style>.x{}</style></head><body>
<nav><a href="/home">Home of the site</a> <a href="/blog">Blog of the site</a></nav>
<main><h1>Configuring the thing</h1>
<p>See <a href="../other.html#part">the other page</a> and <a href="/root/x">the root one</a> and <a href="https://elsewhere.org/a">elsewhere</a>.</p>
<pre><code class="language-ts">const answer: number = 42;</code></pre>
<details><summary>More options</summary><p>Hidden until opened, still text.</p></details>
<table><tr><th>flag</th><th>meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>
<script>window.tracking = "SCRIPT-TEXT";</script>
</main><footer>Copyright footer text</footer></body></html>`;

test('html as markdown: a documentation page gives its main content, links made absolute, code fenced with its language, a table as a table', () => {
  const { markdown, part } = htmlToMarkdown(DOC, URL_OF_PAGE);
  assert.equal(part, 'main');
  assert.match(markdown, /^# Configuring the thing$/m);
  assert.match(markdown, /\[the other page\]\(https:\/\/docs\.example\.com\/guide\/other\.html#part\)/);
  assert.match(markdown, /\[the root one\]\(https:\/\/docs\.example\.com\/root\/x\)/);
  assert.match(markdown, /\[elsewhere\]\(https:\/\/elsewhere\.org\/a\)/);
  assert.match(markdown, /```ts\nconst answer: number = 42;\n```/);
  assert.match(markdown, /Hidden until opened, still text\./);
  assert.match(markdown, /\| flag \| meaning \|/);
  for (const chrome of ['Home of the site', 'Copyright footer text', 'SCRIPT-TEXT', '.x{}'])
    assert.ok(!markdown.includes(chrome), `kept ${chrome}`);
});

test('html as markdown: a page with no main element and no heading is converted whole, without its navigation', () => {
  const html = `<html><body><nav>Site menu entry</nav><div><p>${'A paragraph of the only content there is. '.repeat(5)}</p><p>Second <b>bold</b> part.</p></div></body></html>`;
  const { markdown, part } = htmlToMarkdown(html, URL_OF_PAGE);
  assert.equal(part, 'whole');
  assert.match(markdown, /A paragraph of the only content there is\./);
  assert.match(markdown, /Second \*\*bold\*\* part\./);
  assert.ok(!markdown.includes('Site menu entry'));
});

test('html as markdown: hostile input gives an answer and no hidden script text (deep nesting, double-escaped script, binary, 2 MB of text, unclosed tags)', () => {
  const nested = `<main><h1>Deep</h1>${'<div>'.repeat(5000)}bottom text${'</div>'.repeat(5000)}</main>`;
  assert.match(htmlToMarkdown(nested, URL_OF_PAGE).markdown, /bottom text/);
  const lists = `<h1>Lists</h1>${'<ul><li>'.repeat(3000)}leaf${'</li></ul>'.repeat(3000)}`;
  assert.match(htmlToMarkdown(lists, URL_OF_PAGE).markdown, /leaf/);
  const trap =
    '<main><h1>Trap</h1><p>Visible words of the page body, long enough to count as content.</p><script><!--<script></script>LEAK</script></main>';
  const out = htmlToMarkdown(trap, URL_OF_PAGE).markdown;
  assert.match(out, /Visible words/);
  assert.ok(!out.includes('LEAK'), 'script text leaked');
  assert.equal(typeof htmlToMarkdown(randomBytes(1 << 20).toString('latin1'), URL_OF_PAGE).markdown, 'string');
  const text = 'plain words '.repeat(180_000);
  assert.ok(htmlToMarkdown(text, URL_OF_PAGE).markdown.length > 1_000_000);
  const unclosed = '<h1>Open<p>para <b>bold <i>both <a href="x">link';
  assert.match(htmlToMarkdown(unclosed, URL_OF_PAGE).markdown, /Open/);
});
