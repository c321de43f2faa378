/**
 * The fixed parts of an XLSX workbook (SpreadsheetML, ECMA-376 / ISO/IEC 29500) around the sheets
 * xlsx.ts streams: content types, relationships, the workbook's sheet list, a minimal style sheet
 * (the default cell style and one date format), document properties, each sheet's head and tail,
 * and the rules for sheet names.
 */
import { xmlAttr } from '../text';

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'application/vnd.openxmlformats-';

/** The cell style index of dates (cellXfs: 0 the default, 1 the date-and-time format). */
export const DATE_STYLE = 1;

export function sheetPath(i: number): string {
  return `xl/worksheets/sheet${i + 1}.xml`;
}

/** A sheet's XML up to its first row: the header row frozen at the top. */
export const SHEET_HEAD = `${XML_HEAD}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData>`;
export const SHEET_TAIL =
  '</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>';

/** Every part but the sheets, for the sheet names given (in order), keyed by their path in the ZIP. */
export function workbookParts(sheets: readonly string[], dateFormat: string, created: Date): Array<[string, string]> {
  const iso = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const overrides = sheets
    .map((_, i) => `<Override PartName="/${sheetPath(i)}" ContentType="${CT}officedocument.spreadsheetml.worksheet+xml"/>`)
    .join('');
  return [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="${CT}package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${CT}officedocument.spreadsheetml.sheet.main+xml"/>${overrides}<Override PartName="/xl/styles.xml" ContentType="${CT}officedocument.spreadsheetml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="${CT}package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="${CT}officedocument.extended-properties+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/><Relationship Id="rId2" Type="${NS_PKG_REL}/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId3" Type="${NS_REL}/extended-properties" Target="docProps/app.xml"/></Relationships>`,
    ],
    [
      'docProps/app.xml',
      `${XML_HEAD}<Properties xmlns="${NS_REL.replace('relationships', 'extended-properties')}" xmlns:vt="${NS_REL.replace('relationships', 'docPropsVTypes')}"><Application>Loupe</Application><HeadingPairs><vt:vector size="2" baseType="variant"><vt:variant><vt:lpstr>Worksheets</vt:lpstr></vt:variant><vt:variant><vt:i4>${sheets.length}</vt:i4></vt:variant></vt:vector></HeadingPairs><TitlesOfParts><vt:vector size="${sheets.length}" baseType="lpstr">${sheets.map((s) => `<vt:lpstr>${xmlAttr(s)}</vt:lpstr>`).join('')}</vt:vector></TitlesOfParts></Properties>`,
    ],
    [
      'docProps/core.xml',
      `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:creator>Loupe</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">${iso}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${iso}</dcterms:modified></cp:coreProperties>`,
    ],
    [
      'xl/workbook.xml',
      `${XML_HEAD}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews><sheets>${sheets.map((s, i) => `<sheet name="${xmlAttr(s)}" sheetId="${i + 1}" r:id="rId${i + 2}"/>`).join('')}</sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML_HEAD}<Relationships xmlns="${NS_PKG_REL}"><Relationship Id="rId1" Type="${NS_REL}/styles" Target="styles.xml"/>${sheets.map((_, i) => `<Relationship Id="rId${i + 2}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
    ],
    [
      'xl/styles.xml',
      `${XML_HEAD}<styleSheet xmlns="${NS_MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="${xmlAttr(dateFormat)}"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`,
    ],
  ];
}

/** Excel's limit on a sheet name's length. */
export const SHEET_NAME_MAX = 31;
/** Characters a sheet name cannot hold. */
// eslint-disable-next-line no-control-regex
const SHEET_NAME_BAD = /[[\]:*?/\\\u0000-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Sheet names as Excel accepts them: at most 31 characters (UTF-16 units, a surrogate pair never
 * cut), none of `[ ] : * ? / \` (each becomes `_`), no `'` at either end, not blank, not "History"
 * (Excel reserves it), and unique ignoring case. The n-th part of a sheet is "name (n)", the
 * name shortened to make room.
 */
export class SheetNames {
  private readonly used = new Set<string>();
  readonly names: string[] = [];

  add(wanted: string, part = 1): string {
    let base = wanted
      .replace(SHEET_NAME_BAD, '_')
      .replace(/^'+|'+$/g, '')
      .trim();
    if (!base) base = 'Sheet';
    if (base.toLowerCase() === 'history') base = 'Metric history';
    for (let n = part; ; n++) {
      const suffix = n > 1 ? ` (${n})` : '';
      let head = base.slice(0, SHEET_NAME_MAX - suffix.length);
      if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
      head = head.replace(/'+$/, '');
      const name = head + suffix;
      if (!this.used.has(name.toLowerCase())) {
        this.used.add(name.toLowerCase());
        this.names.push(name);
        return name;
      }
    }
  }
}
