/**
 * A small JSON-with-comments reader: `//` and `/* *\/` comments outside strings and trailing
 * commas before `}` or `]` are removed, then the text goes to `JSON.parse`. Removed comments
 * are replaced by whitespace of the same line structure, so `JSON.parse` positions still point
 * at the right line of the original.
 */

/** Thrown for malformed input: an unterminated string or block comment, or invalid JSON. */
export class JsoncSyntaxError extends SyntaxError {
  constructor(message: string) {
    super(message);
    this.name = "JsoncSyntaxError";
  }
}

const blankOut = (text: string) => text.replace(/[^\n]/g, " ");

/** Removes comments and trailing commas, leaving plain JSON text. */
export const strip = (text: string): string => {
  let out = "";
  let i = 0;
  // Position of the last comma written outside a string, while only whitespace has followed it.
  let pendingComma = -1;
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') {
        if (text[end] === "\\") end += 1;
        if (text[end] === "\n") throw new JsoncSyntaxError(`Unterminated string starting at offset ${i}`);
        end += 1;
      }
      if (end >= text.length) throw new JsoncSyntaxError(`Unterminated string starting at offset ${i}`);
      out += text.slice(i, end + 1);
      pendingComma = -1;
      i = end + 1;
    } else if (char === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      out += blankOut(text.slice(i, stop));
      i = stop;
    } else if (char === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) throw new JsoncSyntaxError(`Unterminated block comment starting at offset ${i}`);
      out += blankOut(text.slice(i, end + 2));
      i = end + 2;
    } else if (char === "}" || char === "]") {
      if (pendingComma !== -1) out = `${out.slice(0, pendingComma)} ${out.slice(pendingComma + 1)}`;
      pendingComma = -1;
      out += char;
      i += 1;
    } else {
      if (char === ",") pendingComma = out.length;
      else if (!/\s/.test(char)) pendingComma = -1;
      out += char;
      i += 1;
    }
  }
  return out;
};

/** Parses JSON-with-comments text into a value. */
export const parse = (text: string): unknown => {
  const json = strip(text);
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new JsoncSyntaxError((error as Error).message);
  }
};
