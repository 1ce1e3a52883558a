/** Rendered HTML to plain text: character references decoded as PHP's html_entity_decode() does, tags stripped. */
import { stripTags } from "./strip-tags";

// HTML 4.01 entity names (what PHP's html_entity_decode() knows by default) plus &apos;.
const LATIN1_NAMES =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest " +
  "Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig " +
  "agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
const GREEK_UPPER = "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho _ Sigma Tau Upsilon Phi Chi Psi Omega";
const GREEK_LOWER =
  "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega";
const OTHER_ENTITIES: Readonly<Record<string, number>> = {
  quot: 34, amp: 38, apos: 39, lt: 60, gt: 62, OElig: 338, oelig: 339, Scaron: 352, scaron: 353, Yuml: 376,
  fnof: 402, circ: 710, tilde: 732, thetasym: 977, upsih: 978, piv: 982, ensp: 8194, emsp: 8195, thinsp: 8201,
  zwnj: 8204, zwj: 8205, lrm: 8206, rlm: 8207, ndash: 8211, mdash: 8212, lsquo: 8216, rsquo: 8217, sbquo: 8218,
  ldquo: 8220, rdquo: 8221, bdquo: 8222, dagger: 8224, Dagger: 8225, bull: 8226, hellip: 8230, permil: 8240,
  prime: 8242, Prime: 8243, lsaquo: 8249, rsaquo: 8250, oline: 8254, frasl: 8260, euro: 8364, image: 8465,
  weierp: 8472, real: 8476, trade: 8482, alefsym: 8501, larr: 8592, uarr: 8593, rarr: 8594, darr: 8595,
  harr: 8596, crarr: 8629, lArr: 8656, uArr: 8657, rArr: 8658, dArr: 8659, hArr: 8660, forall: 8704, part: 8706,
  exist: 8707, empty: 8709, nabla: 8711, isin: 8712, notin: 8713, ni: 8715, prod: 8719, sum: 8721, minus: 8722,
  lowast: 8727, radic: 8730, prop: 8733, infin: 8734, ang: 8736, and: 8743, or: 8744, cap: 8745, cup: 8746,
  int: 8747, there4: 8756, sim: 8764, cong: 8773, asymp: 8776, ne: 8800, equiv: 8801, le: 8804, ge: 8805,
  sub: 8834, sup: 8835, nsub: 8836, sube: 8838, supe: 8839, oplus: 8853, otimes: 8855, perp: 8869, sdot: 8901,
  lceil: 8968, rceil: 8969, lfloor: 8970, rfloor: 8971, lang: 9001, rang: 9002, loz: 9674, spades: 9824,
  clubs: 9827, hearts: 9829, diams: 9830,
};

const NAMED_ENTITIES: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>(Object.entries(OTHER_ENTITIES));
  const addRun = (names: string, first: number): void => {
    names.split(" ").forEach((name, i) => {
      if (name !== "_") map.set(name, first + i);
    });
  };
  addRun(LATIN1_NAMES, 160);
  addRun(GREEK_UPPER, 913);
  addRun(GREEK_LOWER, 945);
  return map;
})();

function validCodePoint(cp: number): boolean {
  return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

/** Decodes named (HTML 4) and numeric character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*));/g, (whole, dec?: string, hex?: string, name?: string) => {
    let cp: number | undefined;
    if (dec !== undefined) cp = parseInt(dec, 10);
    else if (hex !== undefined) cp = parseInt(hex, 16);
    else if (name !== undefined) cp = NAMED_ENTITIES.get(name);
    return cp !== undefined && validCodePoint(cp) ? String.fromCodePoint(cp) : whole;
  });
}

/**
 * Rendered HTML to plain text (JSON-LD names and descriptions): entities
 * decoded first, then script/style bodies and tags removed as
 * wp_strip_all_tags() does, runs of whitespace (including decoded no-break
 * spaces) collapsed to one space. Decoding comes first so that an escaped
 * tag (`&lt;/script&gt;`) cannot come out of it as a live one.
 */
export function plainText(html: string): string {
  const decoded = decodeEntities(html);
  const withoutCode = decoded.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, "");
  return stripTags(withoutCode).replace(/\s+/g, " ").trim();
}
