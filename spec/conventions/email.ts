// E-mail addresses as the APIs' `format: email` means them: JSON Schema (2020-12, section 7.3.2)
// defines the format as RFC 5321's `Mailbox`, so isEmail accepts exactly that grammar (section 4.1.2,
// address literals 4.1.3). ajv-formats' `email` is a narrower regular expression: it wants a dot in the
// domain and refuses quoted local parts and address literals, so it refuses `0@com`, `"a b"@example.com`
// and `postmaster@[192.0.2.1]`, which a mail system takes and tools that generate requests from a
// spec send. Lengths (64 octets of local part, 255 of domain) are left to the schemas' `maxLength`:
// section 4.5.3.1 asks implementations not to impose them where they can avoid it.
//
// Every repetition below is unambiguous (each character can be matched one way only), so a long
// address that fails costs linear time, never the backtracking of `[a-z0-9-]*[a-z0-9]`.

const ATOM = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]+";
const DOT_STRING = `${ATOM}(?:\\.${ATOM})*`;
/** qtextSMTP (a printable character but `"` and `\`, or a space) or a quoted pair. */
const QUOTED_STRING = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"';
/** Let-dig [Ldh-str]: letters and digits, with dashes only inside. */
const SUB_DOMAIN = '[A-Za-z0-9]+(?:-+[A-Za-z0-9]+)*';
const DOMAIN = `${SUB_DOMAIN}(?:\\.${SUB_DOMAIN})*`;
/** An address literal's content: dcontent and the `:` of a tag, anything but `[`, `\` and `]`. */
const LITERAL = '\\[[\\x21-\\x5a\\x5e-\\x7e]+\\]';
const MAILBOX = new RegExp(`^(?:${DOT_STRING}|${QUOTED_STRING})@(?:(${DOMAIN})|(${LITERAL}))$`);

/** Ldh-str: letters, digits and dashes, ending with a letter or digit. */
const STANDARDIZED_TAG = /^-*[A-Za-z0-9]+(?:-+[A-Za-z0-9]+)*$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV6_HEX = /^[0-9A-Fa-f]{1,4}$/;

/** Whether `value` is an RFC 5321 Mailbox: `local-part@domain`, or `local-part@[address literal]`. */
export function isEmail(value: string): boolean {
  const match = MAILBOX.exec(value);
  if (!match) return false;
  const literal = match[2];
  return literal === undefined || isAddressLiteral(literal.slice(1, -1));
}

/** IPv4-address-literal, `IPv6:` IPv6-addr, or General-address-literal (Standardized-tag ":" 1*dcontent). */
function isAddressLiteral(content: string): boolean {
  if (IPV4.test(content)) return isIpv4(content);
  const colon = content.indexOf(':');
  if (colon < 0) return false;
  const tag = content.slice(0, colon);
  if (tag.toLowerCase() === 'ipv6') return isIpv6(content.slice(colon + 1));
  return STANDARDIZED_TAG.test(tag) && colon < content.length - 1;
}

/** Snum 3("." Snum): each of 1 to 3 digits, at most 255. */
function isIpv4(text: string): boolean {
  const parts = IPV4.exec(text);
  return parts?.slice(1).every((part) => Number(part) <= 255) === true;
}

/**
 * IPv6-full (8 groups), IPv6-comp (`::` for at least two groups, at most 6 others), and both with an
 * IPv4 address for the last two groups (IPv6v4-full, IPv6v4-comp: at most 4 others beside `::`).
 */
function isIpv6(text: string): boolean {
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  const withIpv4 = tail.includes('.');
  if (withIpv4 && !isIpv4(tail)) return false;
  const groups = withIpv4 ? text.slice(0, lastColon + 1) : text;
  const room = withIpv4 ? 6 : 8;
  const halves = groups.split('::');
  if (halves.length > 2) return false;
  /** How many hex groups `half` holds (NaN when it is not a list of them), with the colon before an IPv4 address. */
  const hexGroups = (half: string, colonBeforeIpv4: boolean): number => {
    if (half === '') return 0;
    if (colonBeforeIpv4 && !half.endsWith(':')) return Number.NaN;
    const list = (colonBeforeIpv4 ? half.slice(0, -1) : half).split(':');
    return list.every((group) => IPV6_HEX.test(group)) ? list.length : Number.NaN;
  };
  if (halves.length === 1) return hexGroups(groups, withIpv4) === room;
  const [before = '', after = ''] = halves;
  // `::` then the IPv4 address: nothing between, or groups ending with the colon before it.
  const count = hexGroups(before, false) + (withIpv4 && after === '' ? 0 : hexGroups(after, withIpv4));
  return count <= room - 2;
}
