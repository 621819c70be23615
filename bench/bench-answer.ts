/** The long markdown answer the TUI benches stream (headings, lists, tables, code fences, inline markup). */
const WORDS = "the a model answer line text with some more of and to in for on code file path value change test run when what this that each next last first other read write build stream frame screen terminal output input token chunk window scroll region".split(" ");

/** Deterministic prose: consecutive lines differ in nearly every cell, as a real answer's do (a repeated line
 * template would let the renderer's cell diff skip most of each scroll and flatter the byte count). */
function proseLine(i: number): string {
  let x = (i * 2654435761) >>> 0;
  const words: string[] = [];
  let len = 0;
  while (len < 40) {
    x = (x * 1103515245 + 12345) >>> 0;
    const w = WORDS[(x >>> 8) % WORDS.length]!;
    words.push(w);
    len += w.length + 1;
  }
  return words.join(" ");
}

export function benchAnswer(lines: number): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    if (i % 50 === 1) out.push(`## Section ${i}`);
    else if (i % 50 === 20) out.push("```ts", `const v${i} = ${i};`, "```");
    else if (i % 50 === 30) out.push("| col a | col b |", "|---|---|", `| ${i} | [link](https://example.com/${i}) |`);
    else if (i % 10 === 0) out.push("");
    else if (i % 7 === 0) out.push(`- item ${i}: ${proseLine(i).slice(0, 30)} *emphasis* and \`code\``);
    else out.push(`${i} ${proseLine(i)} **bold** and \`code\`.`);
  }
  out.push(`FINAL-LINE-${lines}`);
  return out.join("\n");
}
