import { describe, expect, it } from "vitest";
import { JsoncSyntaxError, parse, strip } from "./jsonc";

describe("JSONC parser", () => {
  it("drops line and block comments outside strings", () => {
    const text = `{
      // leading comment
      "a": 1, /* inline */ "b": [2, 3] // trailing
      /* multi
         line */
    }`;
    expect(parse(text)).toEqual({ a: 1, b: [2, 3] });
  });

  it("keeps comment markers and commas that sit inside strings", () => {
    const text = `{"url": "http://example.com/*x*/", "note": "a, }", "quote": "say \\"hi\\" // not a comment"}`;
    expect(parse(text)).toEqual({ url: "http://example.com/*x*/", note: "a, }", quote: 'say "hi" // not a comment' });
  });

  it("accepts trailing commas in objects and arrays, even with comments before the bracket", () => {
    expect(
      parse(`{"a": [1, 2, ], "b": {"c": 3, // last
    }, }`),
    ).toEqual({ a: [1, 2], b: { c: 3 } });
  });

  it("keeps the line structure, so the stripped text has as many lines as the original", () => {
    const text = `{\n/* one\ntwo */\n"a": 1 // x\n}`;
    expect(strip(text).split("\n")).toHaveLength(text.split("\n").length);
  });

  it("rejects an unterminated block comment", () => {
    expect(() => parse(`{"a": 1 /* open`)).toThrowError(JsoncSyntaxError);
  });

  it("rejects an unterminated string", () => {
    expect(() => parse(`{"a": "open}`)).toThrowError(/Unterminated string/);
  });

  it("rejects text that is not JSON once comments are gone", () => {
    expect(() => parse(`{a: 1}`)).toThrowError(JsoncSyntaxError);
  });

  it("does not treat a comma followed by a value as trailing", () => {
    expect(parse(`[1, /* c */ 2]`)).toEqual([1, 2]);
  });
});
