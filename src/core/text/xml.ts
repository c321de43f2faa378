/** Strings made safe for XML 1.0: what the network files (GEXF, GraphML) and the XLSX writer put in their documents. */
/** Characters XML 1.0 does not allow (C0 controls but TAB/LF/CR, U+FFFE/U+FFFF, lone surrogates). */
/* eslint-disable no-control-regex */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/* eslint-enable no-control-regex */

/** The string with every character XML cannot hold replaced by U+FFFD. */
export function xmlSafe(s: string): string {
  XML_INVALID.lastIndex = 0;
  return XML_INVALID.test(s) ? s.replace(XML_INVALID, '\uFFFD') : s;
}

/** Escaped for an attribute value in double quotes (whitespace kept through attribute normalisation). */
export function xmlAttr(s: string): string {
  return xmlSafe(s).replace(/[&<>"'\t\n\r]/g, (c) => ATTR_ESC[c]);
}
const ATTR_ESC: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** Escaped for element text (CR kept as a character reference: parsers normalise a literal CR to LF). */
export function xmlText(s: string): string {
  return xmlSafe(s).replace(/[&<>\r]/g, (c) => (c === '\r' ? '&#13;' : ATTR_ESC[c]));
}
