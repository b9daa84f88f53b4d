//! Whitespace normalisation shared by HTML and plain-text payloads.
//!
//! The normalised text is what the content hash covers: runs of whitespace become one space,
//! or one newline where the run held a line break (a block element in HTML, a newline in plain
//! text); text starts and ends without whitespace. Two documents whose text differs only in
//! spacing therefore normalise to the same string.

use crate::base::simd::Bytes64;

/// Appends text to a string, collapsing whitespace.
pub struct TextBuilder<'a> {
    out: &'a mut String,
    pending: Gap,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    None,
    Space,
    Break,
}

impl<'a> TextBuilder<'a> {
    /// Starts appending to `out` (normally empty).
    pub fn new(out: &'a mut String) -> Self {
        TextBuilder {
            out,
            pending: Gap::None,
        }
    }

    /// Bytes written so far (a pending break or space not counted).
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// What was written so far.
    pub fn as_str(&self) -> &str {
        self.out
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Marks a line break (a block boundary).
    pub fn brk(&mut self) {
        self.pending = Gap::Break;
    }

    /// Appends `s`; when `newline_breaks`, a newline in `s` counts as a line break.
    ///
    /// A single ASCII space between two non-space characters is already normal, so it does not
    /// end the current run: most text is copied in one piece per call rather than word by word.
    /// The bytes that need no look are passed 64 at a time where the CPU has AVX-512BW (a
    /// paragraph of prose in a few steps), eight at a time elsewhere and near a piece's end.
    pub fn text(&mut self, s: &str, newline_breaks: bool) {
        let bytes = s.as_bytes();
        let path = crate::base::simd::bytes64();
        let wide = bytes.len() >= WIDE && path != Bytes64::Portable;
        // Whether to try the 64-byte skip here: at first, and again only after an eight-byte
        // window needed no look, so that text where every character needs one (non-ASCII
        // scripts) does not try it at every character.
        let mut try_wide = wide;
        let (mut i, mut run) = (0, 0);
        while i < bytes.len() {
            // Skip 64 bytes at a time while none needs a look (see `needs_look`), then eight.
            #[cfg(target_arch = "x86_64")]
            if try_wide && i + WIDE <= bytes.len() {
                try_wide = false;
                let to = match path {
                    // SAFETY: `Bytes64::Avx512` is chosen only where the CPU has AVX-512F and
                    // AVX-512BW.
                    Bytes64::Avx512 => unsafe { skip_wide(bytes, i, i == run) },
                    // SAFETY: `Bytes64::Avx2` is chosen only where the CPU has AVX2.
                    Bytes64::Avx2 => unsafe { skip_wide_avx2(bytes, i, i == run) },
                    Bytes64::Portable => i,
                };
                if to > i {
                    i = to;
                    continue;
                }
            }
            // Elsewhere there is no 64-byte skip to try.
            #[cfg(not(target_arch = "x86_64"))]
            let _ = try_wide;
            if let Some(w) = bytes.get(i..i + 8) {
                let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
                let look = needs_look(w, i == run);
                if look == 0 {
                    i += 8;
                    try_wide = wide;
                    continue;
                }
                i += look.trailing_zeros() as usize / 8;
            }
            let b = bytes[i];
            if b < 0x80 {
                if b == b' '
                    && i > run
                    && bytes
                        .get(i + 1)
                        .is_some_and(|n| *n < 0x80 && !is_ascii_space(*n))
                {
                    i += 1;
                } else if is_ascii_space(b) {
                    self.word(&s[run..i]);
                    // The whole run of ASCII whitespace at once (a page's indentation between
                    // tags is most of its text segments), not a window a byte.
                    let (end, newline) = space_run(bytes, i);
                    i = end;
                    self.gap(if newline_breaks && newline {
                        Gap::Break
                    } else {
                        Gap::Space
                    });
                    run = i;
                } else {
                    i += 1;
                }
            } else {
                let c = s[i..].chars().next().unwrap_or(' ');
                let l = c.len_utf8();
                if c.is_whitespace() {
                    self.word(&s[run..i]);
                    self.gap(Gap::Space);
                    run = i + l;
                }
                i += l;
            }
        }
        self.word(&s[run..]);
    }

    fn gap(&mut self, g: Gap) {
        self.pending = self.pending.max(g);
    }

    fn word(&mut self, w: &str) {
        if w.is_empty() {
            return;
        }
        if !self.out.is_empty() {
            match self.pending {
                Gap::None => {}
                Gap::Space => self.out.push(' '),
                Gap::Break => self.out.push('\n'),
            }
        }
        self.pending = Gap::None;
        self.out.push_str(w);
    }
}

const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The bytes of an eight-byte window (little-endian) that the byte-wise rule must look at,
/// flagged in their high bit (exactly, byte by byte: no carry crosses a byte): controls,
/// non-ASCII bytes, and the spaces that are not already normal (a space followed by another,
/// by a control or a non-ASCII byte, a space in the last byte, whose successor is not in the
/// window, and a space in the first byte when `at_run_start`). A single space between two
/// printable ASCII bytes is left in the run.
#[inline]
fn needs_look(w: u64, at_run_start: bool) -> u64 {
    let non_ascii = w & HIGH;
    // An ASCII byte below 0x20 stays below 0x80 when 0x60 is added.
    let control = !((w & LOW) + 0x6060_6060_6060_6060) & HIGH;
    let special = non_ascii | control;
    let x = w ^ 0x2020_2020_2020_2020;
    let space = !(((x & LOW) + LOW) | x) & HIGH;
    let followed = ((special | space) >> 8) | (1 << 63);
    let first = if at_run_start { 0x80 } else { 0 };
    special | (space & (followed | first))
}

/// Bytes a wide window holds.
const WIDE: usize = 64;

/// The bytes of a 64-byte window the byte-wise rule must look at, from its masks of special
/// bytes (controls and non-ASCII) and of spaces: [`needs_look`]'s rule, one bit a byte.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn wide_look(special: u64, spaces: u64, first: u64) -> u64 {
    let followed = ((special | spaces) >> 1) | (1 << 63);
    special | (spaces & (followed | first))
}

/// The first byte at or after `i` that the byte-wise rule must look at, found 64 bytes at a
/// time while `i + 64 <= bytes.len()` ([`needs_look`]'s rule on one bit a byte; a space in a
/// window's last byte, whose successor is in the next window, is looked at); `i` itself when
/// the look is in the first window's first byte, and at most the start of the last whole
/// window past what was skipped (the caller goes on eight bytes at a time from there).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn skip_wide(bytes: &[u8], mut i: usize, at_run_start: bool) -> usize {
    use std::arch::x86_64::*;
    let control_below = _mm512_set1_epi8(0x20);
    let space = _mm512_set1_epi8(b' ' as i8);
    let mut first = u64::from(at_run_start);
    while i + WIDE <= bytes.len() {
        // SAFETY: `i + 64 <= bytes.len()`: one unaligned 64-byte load in bounds.
        let v = unsafe { _mm512_loadu_si512(bytes.as_ptr().add(i).cast()) };
        // Non-ASCII bytes have the high bit; controls are below 0x20 as unsigned bytes.
        let special = _mm512_movepi8_mask(v) | _mm512_cmplt_epu8_mask(v, control_below);
        let spaces = _mm512_cmpeq_epi8_mask(v, space);
        let look = wide_look(special, spaces, first);
        if look != 0 {
            return i + look.trailing_zeros() as usize;
        }
        first = 0;
        i += WIDE;
    }
    i
}

/// [`skip_wide`] with AVX2: a window is two 32-byte halves, whose masks are joined into one.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn skip_wide_avx2(bytes: &[u8], mut i: usize, at_run_start: bool) -> usize {
    use std::arch::x86_64::*;
    // As signed bytes, the controls (below 0x20) and the non-ASCII bytes (0x80 and above,
    // negative) are exactly those less than 0x20.
    let control_below = _mm256_set1_epi8(0x20);
    let space = _mm256_set1_epi8(b' ' as i8);
    let mut first = u64::from(at_run_start);
    while i + WIDE <= bytes.len() {
        // SAFETY: `i + 64 <= bytes.len()`: two unaligned 32-byte loads in bounds.
        let (lo, hi) = unsafe {
            let p = bytes.as_ptr().add(i);
            (
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(32).cast()),
            )
        };
        let mask = |a: __m256i, b: __m256i| {
            u64::from(_mm256_movemask_epi8(a) as u32)
                | (u64::from(_mm256_movemask_epi8(b) as u32) << 32)
        };
        let special = mask(
            _mm256_cmpgt_epi8(control_below, lo),
            _mm256_cmpgt_epi8(control_below, hi),
        );
        let spaces = mask(_mm256_cmpeq_epi8(lo, space), _mm256_cmpeq_epi8(hi, space));
        let look = wide_look(special, spaces, first);
        if look != 0 {
            return i + look.trailing_zeros() as usize;
        }
        first = 0;
        i += WIDE;
    }
    i
}

/// The end of the run of ASCII whitespace at `i`, and whether it holds a newline: eight bytes
/// at a time (a page's indentation between tags is most of its text segments), then byte by
/// byte in the last few.
#[inline]
fn space_run(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut newline = false;
    while let Some(w) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        let other = !ascii_spaces(w) & HIGH;
        // Bytes of the run in this window: all eight, or those before the first other byte
        // (whose flag is its high bit, bit 8k + 7 of byte k).
        let (n, before) = if other == 0 {
            (8, u64::MAX)
        } else {
            let k = other.trailing_zeros() as usize / 8;
            (k, (1u64 << (8 * k)) - 1)
        };
        newline |= bytes_equal(w, b'\n') & before != 0;
        i += n;
        if n < 8 {
            return (i, newline);
        }
    }
    while let Some(&c) = bytes.get(i).filter(|c| is_ascii_space(**c)) {
        newline |= c == b'\n';
        i += 1;
    }
    (i, newline)
}

/// The bytes of `w` equal to `c`, flagged in their high bit (exactly: no carry crosses a byte).
#[inline]
fn bytes_equal(w: u64, c: u8) -> u64 {
    let x = w ^ (u64::from(c) * 0x0101_0101_0101_0101);
    !(((x & LOW) + LOW) | x) & HIGH
}

/// The bytes of `w` that are ASCII whitespace ([`is_ascii_space`]), flagged in their high bit.
#[inline]
fn ascii_spaces(w: u64) -> u64 {
    // 0x09 to 0x0d: ASCII, at least 0x09 and not at least 0x0e (0x7f plus 0x77 is below 0x100,
    // so no carry crosses a byte).
    let low = w & LOW;
    let at_least_9 = low + 0x7777_7777_7777_7777;
    let at_least_14 = low + 0x7272_7272_7272_7272;
    let controls = at_least_9 & !at_least_14 & !w & HIGH;
    bytes_equal(w, b' ') | controls
}

#[inline]
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b')
}

/// Normalises plain text into `out`.
pub fn plain(text: &str, out: &mut String) {
    TextBuilder::new(out).text(text, true);
}

#[cfg(test)]
mod tests {
    #[test]
    fn collapses_runs_and_trims() {
        let mut out = String::new();
        super::plain("  a \t b\n\n  c\u{a0}\u{2003}d  ", &mut out);
        assert_eq!(out, "a b\nc d");
    }

    /// The rule itself, one character at a time.
    fn reference(parts: &[(&str, bool, bool)]) -> String {
        let mut out = String::new();
        let mut pending = 0; // 0 none, 1 space, 2 break
        for (s, newline_breaks, brk) in parts {
            if *brk {
                pending = 2;
            }
            for c in s.chars() {
                let ascii_ws = matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '\x0b');
                if ascii_ws || c.is_whitespace() {
                    let g = if *newline_breaks && c == '\n' { 2 } else { 1 };
                    pending = pending.max(g);
                } else {
                    if !out.is_empty() {
                        match pending {
                            1 => out.push(' '),
                            2 => out.push('\n'),
                            _ => {}
                        }
                    }
                    pending = 0;
                    out.push(c);
                }
            }
        }
        out
    }

    #[test]
    fn equals_the_character_by_character_rule_on_random_text() {
        let alphabet = [
            'a', 'b', ' ', ' ', '\t', '\n', '\r', '\u{a0}', '\u{2003}', 'é', '\x0b', '.', '\x1f',
            '\x7f', '~', '!',
        ];
        // Half the short texts are mostly words and single spaces, what the eight-byte skip
        // passes.
        let prose = ['c', 'd', 'e', 'f', 'g', 'h', 'i', ' '];
        let indent = [
            "\n", "    ", "\t\t", "x", "\r\n", "\x0c", "\x0b", "        ", "é", "\u{a0}", " ",
        ];
        let mut rng = crate::base::rng::SplitMix64(17);
        // A third of the pieces are long (64 to 463 characters, most of them prose with a
        // rare character every 10 to 200), which the 64-byte skip passes where the CPU has
        // AVX-512BW.
        for _ in 0..6000 {
            let mut parts: Vec<(String, bool, bool)> = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let long = rng.below(3) == 0;
                let n = if long {
                    64 + rng.below(400)
                } else {
                    rng.below(40)
                } as usize;
                let rare = !long && rng.below(2) == 0;
                let every = [10, 10, 50, 200][rng.below(4) as usize];
                let mut s: String = (0..n)
                    .map(|_| {
                        if rare || rng.below(every) == 0 {
                            alphabet[rng.below(alphabet.len() as u64) as usize]
                        } else {
                            prose[rng.below(prose.len() as u64) as usize]
                        }
                    })
                    .collect();
                // A quarter of the pieces are a page's indentation: long runs of every kind
                // of ASCII whitespace between words, which the whitespace run passes eight
                // bytes at a time.
                if rng.below(4) == 0 {
                    s = (0..rng.below(30))
                        .map(|_| indent[rng.below(indent.len() as u64) as usize])
                        .collect();
                }
                parts.push((s, rng.below(2) == 0, rng.below(4) == 0));
            }
            let mut out = String::new();
            let mut b = super::TextBuilder::new(&mut out);
            for (s, nl, brk) in &parts {
                if *brk {
                    b.brk();
                }
                b.text(s, *nl);
            }
            let refs: Vec<(&str, bool, bool)> =
                parts.iter().map(|(s, n, k)| (s.as_str(), *n, *k)).collect();
            assert_eq!(out, reference(&refs), "{parts:?}");
        }
    }

    /// What the 64-byte skips find, byte by byte: the first byte of a whole window that the
    /// byte-wise rule must look at, or where the whole windows end.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    fn skip_reference(bytes: &[u8], mut i: usize, at_run_start: bool) -> usize {
        let special = |c: u8| !(0x20..0x80).contains(&c);
        let mut first = at_run_start;
        while i + super::WIDE <= bytes.len() {
            for j in 0..super::WIDE {
                let b = bytes[i + j];
                let next = bytes.get(i + j + 1).copied().unwrap_or(b'a');
                let space_look = j == super::WIDE - 1 || special(next) || next == b' ';
                if special(b) || (b == b' ' && (space_look || (j == 0 && first))) {
                    return i + j;
                }
            }
            first = false;
            i += super::WIDE;
        }
        i
    }

    /// Each 64-byte skip this CPU has (AVX-512BW, AVX2) against the byte-by-byte rule, on
    /// random text, from every kind of start.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn the_wide_skips_equal_the_byte_by_byte_rule() {
        let alphabet = [b'a', b'b', b' ', b'\t', b'\n', 0x7f, 0x1f, 0xc3, 0xa9, b'~'];
        let mut rng = crate::base::rng::SplitMix64(29);
        let (avx512, avx2) = (
            crate::base::simd::avx512().bytes,
            std::arch::is_x86_feature_detected!("avx2"),
        );
        let mut windows = 0;
        for _ in 0..20_000 {
            let n = rng.below(300) as usize;
            let every = [4, 30, 400, 4000][rng.below(4) as usize];
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    if rng.below(every) == 0 {
                        alphabet[rng.below(alphabet.len() as u64) as usize]
                    } else {
                        [b'q', b'r', b's', b't', b'x', b'y', b'z', b' '][rng.below(8) as usize]
                    }
                })
                .collect();
            let i = rng.below(n as u64 + 1) as usize;
            let start = rng.below(2) == 0;
            let want = skip_reference(&bytes, i, start);
            windows += usize::from(want >= i + super::WIDE);
            if avx512 {
                // SAFETY: the CPU has AVX-512F and AVX-512BW.
                let got = unsafe { super::skip_wide(&bytes, i, start) };
                assert_eq!(got, want, "avx512 {bytes:?} from {i}");
            }
            if avx2 {
                // SAFETY: the CPU has AVX2.
                let got = unsafe { super::skip_wide_avx2(&bytes, i, start) };
                assert_eq!(got, want, "avx2 {bytes:?} from {i}");
            }
        }
        // Whole windows were skipped, not only looks found in the first one.
        assert!(windows > 1000, "{windows}");
    }

    /// The eight-byte whitespace test against the byte's own, for every byte value in every
    /// place of a window, beside every other.
    #[test]
    fn ascii_spaces_eight_at_a_time_equal_byte_by_byte() {
        for b in 0..=255u8 {
            for other in [b'a', b' ', b'\n', 0x80, 0x0e, 0x08, 0xff] {
                for k in 0..8 {
                    let mut bytes = [other; 8];
                    bytes[k] = b;
                    let w = u64::from_le_bytes(bytes);
                    let flags = super::ascii_spaces(w);
                    let newlines = super::bytes_equal(w, b'\n');
                    for (j, c) in bytes.iter().enumerate() {
                        let bit = 8 * j + 7;
                        assert_eq!(
                            flags >> bit & 1 == 1,
                            super::is_ascii_space(*c),
                            "{bytes:?}"
                        );
                        assert_eq!(newlines >> bit & 1 == 1, *c == b'\n', "{bytes:?}");
                    }
                    assert_eq!(flags & !super::HIGH, 0);
                }
            }
        }
    }

    #[test]
    fn adjacent_text_joins() {
        let mut out = String::new();
        let mut b = super::TextBuilder::new(&mut out);
        b.text("foo", false);
        b.text("bar ", false);
        b.brk();
        b.text(" baz", false);
        assert_eq!(out, "foobar\nbaz");
    }
}
