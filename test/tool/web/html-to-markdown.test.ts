import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../../src/tool/web/html-to-markdown.ts";

describe("htmlToMarkdown inline marks", () => {
  test("emphasis and inline code open and close with the same mark; code inside <pre> stays plain", () => {
    const html = "<p><strong>a</strong> <b>b</b> <em>c</em> <i>d</i> <code>e</code></p><pre><code>x = 1</code></pre>";
    expect(htmlToMarkdown(html).markdown).toBe("**a** **b** _c_ _d_ `e`\n\n```\nx = 1\n```");
  });

  test("a tag named like an Object property is just text", () => {
    expect(htmlToMarkdown("<constructor>k</constructor><toString>z</toString>").markdown).toBe("kz");
  });
});
