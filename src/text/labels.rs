//! Lines of a page's main region that are about the page, not of it: the labels a site puts
//! between its story's paragraphs (`Advertisement`, `TRENDING:`, `Share this article`,
//! `Comments`, a table of contents' heading whose lines of links are left out as links:
//! `Table of contents`, `Inhaltsverzeichnis`) and the date lines above or below it
//! (`Posted: Fri 6:45 PM, Feb 16, 2018 |`, `Updated 10:01 pm PST, Tuesday, November 19,
//! 2019`, `By: CNN Wire`). A reader skips them, article-extraction truths leave them out, and
//! two copies of one story (syndicated, or fetched before and after an update) differ in them
//! and nowhere else.
//!
//! Each is judged on a block's whole text: a label is one of a fixed list of phrases, in
//! several languages, matched whole after case and a trailing colon or ellipsis are set
//! aside (`Related Tags:`), so that a sentence or a heading that only begins with one
//! (`Comments on the draft standard`) stays text. A date line holds a date (a month's name
//! beside a number, or digits in a date's shape, `2019-11-20`, `08/01/2014`) and besides its
//! numbers, months, weekdays and the words of a time stamp (`posted`, `updated`, `at`, `PST`,
//! `de`: a stamp word between a number and its month keeps them beside each other, `4 de
//! outubro de 2019`) at most three words: a name, a place or the site (`Jose Altoveros
//! 2019-11-20 14:35:08`).
//! A byline is `By` and a name of one to four capitalised words. A line of a reading time
//! (`5 min read`, `Lesezeit: 3 Minuten`) is a label too. A label that heads a list
//! of other stories (`Our Latest Stories`, `Related Articles`) takes its section with it
//! ([`Kind::Section`]).

/// The longest block (bytes) judged a label or a date line; longer is text.
const MAX_LINE: usize = 120;

/// The most words of a date line that are not part of its time stamp.
const MAX_OTHER_WORDS: usize = 3;

/// Phrases a site labels its page's parts with, lowercased, without a trailing colon (those
/// that head a list of other stories are [`SECTION_LABELS`]).
const LABELS: &[&str] = &[
    // English
    "actions",
    "ad",
    "add a comment",
    "ads",
    "advert",
    "advertisement",
    "advertisements",
    "advertising",
    "article continues below",
    "comment",
    "comments",
    "continue reading below",
    "e-mail",
    "email",
    "follow",
    "follow us",
    "leave a comment",
    "more from",
    "paid content",
    "post a comment",
    "post comment",
    "post comment (+)",
    "related tags",
    "related topics",
    "see more photos",
    "share",
    "share on facebook",
    "share on twitter",
    "share on whatsapp",
    "share on linkedin",
    "share on pinterest",
    "share on reddit",
    "share on telegram",
    "share on x",
    "share this on facebook",
    "share this on twitter",
    "share this on whatsapp",
    "share this on linkedin",
    "share via email",
    "share by email",
    "share this",
    "share this article",
    "share this story",
    "share this post",
    "share this page",
    "share this article with your friends",
    "copy link",
    "link copied",
    "the link has been copied!",
    // A comment thread's and a forum's prompts and tools
    "be the first to comment",
    "join the conversation",
    "join the discussion",
    "leave a reply",
    "view story comments",
    "what do you think?",
    "reply to this topic",
    "jump to",
    "threaded mode",
    "switch to print view",
    "top posters in this topic",
    "popular days",
    // A documentation page's question to its reader
    "was this helpful?",
    "was this page helpful?",
    "was this article helpful?",
    "show comments",
    "skip advertisement",
    "sponsored",
    "sponsored content",
    "story continues below",
    "story continues below advertisement",
    "this slideshow requires javascript",
    "to read the full story",
    "tweet",
    "view comments",
    // A table of contents' heading (its lines of links are left out as links)
    "article contents",
    "contents",
    "in this article",
    "on this page",
    "page contents",
    "table of contents",
    "inhalt",
    "inhaltsverzeichnis",
    "sommaire",
    "table des matières",
    "contenido",
    "contenidos",
    "tabla de contenidos",
    "índice",
    "indice",
    "sommario",
    "conteúdo",
    "sumário",
    "inhoud",
    "inhoudsopgave",
    "spis treści",
    "содержание",
    "оглавление",
    // German
    "anzeige",
    "artikel teilen",
    "kommentare",
    "teilen",
    "teilen sie dies mit",
    "werbung",
    // French
    "commentaires",
    "partager",
    "publicité",
    // Spanish
    "comentar",
    "comentarios",
    "compartir",
    "publicidad",
    "valorar",
    // Italian
    "commenti",
    "condividi",
    "pubblicità",
    // Portuguese
    "comentários",
    "compartilhe",
    "publicidade",
    // Dutch
    "advertentie",
    "delen",
    "reacties",
    // Polish
    "komentarze",
    "reklama",
    "udostępnij",
    // Russian
    "комментарии",
    "поделиться",
    "реклама",
];

/// Labels that head a list of other stories (`Our Latest Stories`, `Related Articles`,
/// `Ähnliche Beiträge`): what follows them in their section is the site's, not the page's.
const SECTION_LABELS: &[&str] = &[
    "das könnte sie auch interessieren",
    "latest news",
    "latest stories",
    "lee también",
    "leggi anche",
    "leia também",
    "lees ook",
    "lire aussi",
    "à lire aussi",
    "mehr zum thema",
    "more news",
    "more stories",
    "most popular",
    "most popular articles",
    "most popular videos",
    "most read",
    "noticias relacionadas",
    "our latest stories",
    "recommended",
    "recommended for you",
    "related",
    "related articles",
    "related content",
    "related items",
    "related links",
    "related news",
    "related posts",
    "related stories",
    "sur le même sujet",
    "te puede interesar",
    "top stories",
    "trending",
    "trending now",
    "you may also like",
    "you might also like",
    "zobacz także",
    "czytaj także",
    "читайте также",
    "ähnliche beiträge",
];

/// Month names and their abbreviations (English, German, French, Spanish, Portuguese,
/// Italian, Dutch, Indonesian, Polish, Russian), lowercased.
fn is_month(w: &str) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        "jan"
            | "january"
            | "feb"
            | "february"
            | "mar"
            | "march"
            | "apr"
            | "april"
            | "may"
            | "jun"
            | "june"
            | "jul"
            | "july"
            | "aug"
            | "august"
            | "sep"
            | "sept"
            | "september"
            | "oct"
            | "october"
            | "nov"
            | "november"
            | "dec"
            | "december"
            | "januar"
            | "februar"
            | "märz"
            | "mai"
            | "juni"
            | "juli"
            | "oktober"
            | "dezember"
            | "janvier"
            | "février"
            | "mars"
            | "avril"
            | "juin"
            | "juillet"
            | "août"
            | "septembre"
            | "octobre"
            | "novembre"
            | "décembre"
            | "enero"
            | "febrero"
            | "marzo"
            | "abril"
            | "mayo"
            | "junio"
            | "julio"
            | "agosto"
            | "septiembre"
            | "octubre"
            | "noviembre"
            | "diciembre"
            // Portuguese, Italian, Dutch, Indonesian (the names no list above has)
            | "janeiro"
            | "fevereiro"
            | "março"
            | "maio"
            | "junho"
            | "julho"
            | "setembro"
            | "outubro"
            | "dezembro"
            | "gennaio"
            | "febbraio"
            | "aprile"
            | "maggio"
            | "giugno"
            | "luglio"
            | "settembre"
            | "ottobre"
            | "dicembre"
            | "januari"
            | "februari"
            | "maart"
            | "mei"
            | "augustus"
            | "maret"
            | "agustus"
            | "desember"
            // Polish, as dates write them and as named
            | "stycznia"
            | "lutego"
            | "marca"
            | "kwietnia"
            | "maja"
            | "czerwca"
            | "lipca"
            | "sierpnia"
            | "września"
            | "października"
            | "listopada"
            | "grudnia"
            | "styczeń"
            | "luty"
            | "marzec"
            | "kwiecień"
            | "maj"
            | "czerwiec"
            | "lipiec"
            | "sierpień"
            | "wrzesień"
            | "październik"
            | "listopad"
            | "grudzień"
            // Russian, as dates write them
            | "января"
            | "февраля"
            | "марта"
            | "апреля"
            | "мая"
            | "июня"
            | "июля"
            | "августа"
            | "сентября"
            | "октября"
            | "ноября"
            | "декабря"
    )
}

/// Weekdays and the words of a time stamp, lowercased.
fn is_stamp_word(w: &str) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        "mon"
            | "monday"
            | "tue"
            | "tues"
            | "tuesday"
            | "wed"
            | "wednesday"
            | "thu"
            | "thur"
            | "thurs"
            | "thursday"
            | "fri"
            | "friday"
            | "sat"
            | "saturday"
            | "sun"
            | "sunday"
            | "posted"
            | "updated"
            | "published"
            | "modified"
            | "edited"
            | "last"
            | "first"
            | "on"
            | "at"
            | "by"
            | "and"
            | "am"
            | "pm"
            | "a"
            | "m"
            | "p"
            | "gmt"
            | "utc"
            | "pst"
            | "pdt"
            | "est"
            | "edt"
            | "cst"
            | "cdt"
            | "mst"
            | "mdt"
            | "bst"
            | "cet"
            | "cest"
            | "ist"
            | "et"
            | "pt"
            | "date"
            | "time"
            | "of"
            | "the"
            | "th"
            | "st"
            | "nd"
            | "rd"
            | "publicado"
            | "actualizado"
            | "el"
            | "de"
            | "aktualisiert"
            | "veröffentlicht"
            | "um"
            | "uhr"
            | "publié"
            | "le"
            | "mis"
            | "à"
            | "jour"
            | "às"
            | "em"
            | "alle"
            | "ore"
            | "om"
            | "godz"
            | "pukul"
            | "wib"
    )
}

/// What a block's text is to the content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text of the content.
    Text,
    /// A label, a date line or a byline: left out.
    Label,
    /// A label that heads a list of other stories: left out with that list.
    Section,
}

/// Judges blocks' texts ([`Judge::kind`]), with a buffer kept from one block to the next.
#[derive(Default)]
pub struct Judge {
    buf: String,
}

impl Judge {
    /// What the block's text `s` is (see the module's notes).
    pub fn kind(&mut self, s: &str) -> Kind {
        let s = s.trim();
        if s.is_empty() || s.len() > MAX_LINE {
            return Kind::Text;
        }
        // A line with a digit is no label (none holds one): a date line or text, told on its
        // words as they are. Most other blocks begin and end with letters no label begins
        // and ends with, and are no byline: told without reading them again.
        if s.bytes().any(|b| b.is_ascii_digit()) {
            return if is_date_line(s) || is_byline(s) || is_reading_time(s) {
                Kind::Label
            } else {
                Kind::Text
            };
        }
        let more_from = s
            .get(..10)
            .is_some_and(|p| p.eq_ignore_ascii_case("more from "));
        if !more_from && (s.len() > 2 * LONGEST_LABEL || !ends().may_be(s)) {
            return if is_byline(s) {
                Kind::Label
            } else {
                Kind::Text
            };
        }
        let n = normal(s, &mut self.buf);
        if let Some(kind) = phrases().get(n) {
            *kind
        } else if is_more_from(n) {
            Kind::Section
        } else if is_byline(s) {
            Kind::Label
        } else {
            Kind::Text
        }
    }
}

/// The bytes of the longest of [`LABELS`] and [`SECTION_LABELS`] (checked by a test).
const LONGEST_LABEL: usize = 40;

/// The pairs of first and last bytes (ASCII letters lowercased; the line's trailing colon,
/// full stop and white space set aside) that some label begins and ends with; a line that
/// begins or ends with a byte outside ASCII is never told apart by them.
struct Ends {
    bits: Vec<u64>,
}

impl Ends {
    fn index(first: u8, last: u8) -> usize {
        (first.to_ascii_lowercase() as usize) << 7 | (last.to_ascii_lowercase() as usize & 0x7f)
    }

    /// Whether the trimmed line `s` may be a label by its first and last bytes.
    fn may_be(&self, s: &str) -> bool {
        let body = s.trim_end_matches([':', '.', ' ', '\n', '\t', '\r']);
        let (Some(&first), Some(&last)) = (body.as_bytes().first(), body.as_bytes().last()) else {
            return false;
        };
        if !first.is_ascii() || !last.is_ascii() {
            return true;
        }
        let i = Self::index(first, last);
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }
}

/// [`Ends`] of [`LABELS`] and [`SECTION_LABELS`], made once.
fn ends() -> &'static Ends {
    static ENDS: std::sync::OnceLock<Ends> = std::sync::OnceLock::new();
    ENDS.get_or_init(|| {
        let mut bits = vec![0u64; (128 << 7) / 64];
        for l in LABELS.iter().chain(SECTION_LABELS) {
            let (first, last) = (l.as_bytes()[0], l.as_bytes()[l.len() - 1]);
            if first.is_ascii() && last.is_ascii() {
                let i = Ends::index(first, last);
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        Ends { bits }
    })
}

/// [`LABELS`] and [`SECTION_LABELS`], each with its kind, made once.
fn phrases() -> &'static std::collections::HashMap<&'static str, Kind> {
    static MAP: std::sync::OnceLock<std::collections::HashMap<&'static str, Kind>> =
        std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        let labels = LABELS.iter().map(|l| (*l, Kind::Label));
        labels
            .chain(SECTION_LABELS.iter().map(|l| (*l, Kind::Section)))
            .collect()
    })
}

/// The trimmed line `s` lowercased into `buf`, its runs of white space one space, without a
/// trailing colon, ellipsis or full stop.
fn normal<'b>(s: &str, buf: &'b mut String) -> &'b str {
    buf.clear();
    for w in s.split_whitespace() {
        if !buf.is_empty() {
            buf.push(' ');
        }
        if w.is_ascii() {
            buf.extend(w.bytes().map(|b| b.to_ascii_lowercase() as char));
        } else {
            buf.extend(w.chars().flat_map(char::to_lowercase));
        }
    }
    buf.trim_end_matches([':', '.', '…', ' '])
}

/// Whether the normalised line `n` is `more from` and a site's name (`more from the verge`):
/// a label that heads a list of other stories.
fn is_more_from(n: &str) -> bool {
    n.strip_prefix("more from ")
        .is_some_and(|site| (1..=3).contains(&site.split(' ').count()))
}

/// Whether the line `n` is a date line: a date, and at most
/// [`MAX_OTHER_WORDS`] words besides its numbers and time-stamp words. A line that names a
/// version or a hash ([`names_release`]) is the content of a release's notes, not a stamp.
fn is_date_line(n: &str) -> bool {
    if names_release(n) {
        return false;
    }
    let number = |w: &str| w.bytes().any(|b| b.is_ascii_digit());
    let (mut month_beside_number, mut other) = (false, 0);
    // The kind of the word before: 0 none, 1 a number, 2 a month.
    let mut before = 0u8;
    // A word lowercased: ASCII in a buffer on the stack; a longer one is no month or stamp
    // word (the longest is 16 bytes, `сентября`); one outside ASCII, rare in a line with
    // digits, in a string of its own.
    let mut buf = [0u8; 16];
    for w in n
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let owned;
        let lower: &str = if w.len() > buf.len() {
            ""
        } else if w.is_ascii() {
            let b = &mut buf[..w.len()];
            b.copy_from_slice(w.as_bytes());
            b.make_ascii_lowercase();
            std::str::from_utf8(b).unwrap_or("")
        } else {
            owned = w.to_lowercase();
            &owned
        };
        let kind = if number(w) {
            1
        } else if is_month(lower) {
            2
        } else if is_stamp_word(lower) {
            // A stamp word keeps what was before it: `4 de outubro`, `3rd of May`.
            continue;
        } else {
            other += 1;
            if other > MAX_OTHER_WORDS {
                return false;
            }
            0
        };
        month_beside_number |= (before, kind) == (1, 2) || (before, kind) == (2, 1);
        before = kind;
    }
    month_beside_number || has_numeric_date(n)
}

/// Whether the line `n` holds a version number (`3.11.0`, `v2.1`) or a hexadecimal hash
/// (`f047920ce1`): a release's heading (`Release 3.11.1 on 2016-03-03`, `Changes in version
/// 3.11.0 (2016-02-15):`) or a build's stamp, which differ from one release's page to the
/// next where a date line is the story's byline.
fn names_release(n: &str) -> bool {
    n.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .any(|w| is_version(w) || is_hash(w))
}

/// Whether `w` is a version: three or more parts of digits joined by dots, none of four
/// digits (a date's year: `05.12.2026`), or two or more after a `v` (`v2.1`).
fn is_version(w: &str) -> bool {
    let w = w.trim_end_matches('.');
    let (w, least) = match w.strip_prefix(['v', 'V']) {
        Some(rest) => (rest, 2),
        None => (w, 3),
    };
    let mut parts = 0;
    for p in w.split('.') {
        if p.is_empty() || p.len() >= 4 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        parts += 1;
    }
    parts >= least
}

/// Whether `w` is a hexadecimal hash: seven or more hexadecimal digits, with a digit and a
/// letter among them (a commit, a checksum).
fn is_hash(w: &str) -> bool {
    w.len() >= 7
        && w.bytes().all(|b| b.is_ascii_hexdigit())
        && w.bytes().any(|b| b.is_ascii_digit())
        && w.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Whether `s` says how long the story takes to read: a number of minutes and a word of
/// reading, and at most six words (`5 min read`, `Reading time: 4 minutes`, `Lesezeit: 3
/// Minuten`, `Tempo de leitura: 1 minuto`, `Czas czytania: 2 min`).
fn is_reading_time(s: &str) -> bool {
    let (mut minutes, mut reading, mut words) = (false, false, 0);
    for w in s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        words += 1;
        if words > 6 {
            return false;
        }
        let w = w.to_lowercase();
        minutes |= matches!(
            w.as_str(),
            "min"
                | "mins"
                | "minute"
                | "minutes"
                | "minuten"
                | "minuto"
                | "minutos"
                | "minuti"
                | "minut"
                | "minuty"
                | "minuut"
                | "мин"
                | "минут"
                | "минуты"
        );
        reading |= matches!(
            w.as_str(),
            "read"
                | "reading"
                | "lesezeit"
                | "lesedauer"
                | "leitura"
                | "lectura"
                | "lecture"
                | "lettura"
                | "czytania"
                | "leestijd"
                | "чтения"
        );
    }
    minutes && reading
}

/// Whether `n` holds digits in a date's shape: `2019-11-20`, `08/01/2014`, `19.11.2019`
/// (three runs of digits joined by one separator, a run of four among them).
fn has_numeric_date(n: &str) -> bool {
    let b = n.as_bytes();
    let run = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - start)
    };
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let (e1, l1) = run(i);
        let shaped = (|| {
            let sep = *b.get(e1)?;
            if !matches!(sep, b'-' | b'/' | b'.') {
                return None;
            }
            let (e2, l2) = run(e1 + 1);
            if b.get(e2) != Some(&sep) {
                return None;
            }
            let (_, l3) = run(e2 + 1);
            let lens = [l1, l2, l3];
            let ok = lens.iter().all(|l| (1..=4).contains(l))
                && lens.contains(&4)
                && lens.iter().filter(|l| **l <= 2).count() == 2;
            ok.then_some(())
        })();
        if shaped.is_some() {
            return true;
        }
        i = e1;
    }
    false
}

/// Whether `s` is a byline: `By` (or `By:`) and a name of one to four words, each
/// capitalised, with no sentence's punctuation.
fn is_byline(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("By ").or_else(|| s.strip_prefix("By: ")) else {
        return false;
    };
    (1..=4).contains(&rest.split_whitespace().count())
        && rest.split_whitespace().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\''))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_label(s: &str) -> bool {
        Judge::default().kind(s) != Kind::Text
    }

    fn is_section_label(s: &str) -> bool {
        Judge::default().kind(s) == Kind::Section
    }

    /// The quick test passes every label however it is written: as listed, in capitals,
    /// capitalised, with a trailing colon.
    #[test]
    fn every_label_is_told_in_every_case() {
        for l in LABELS.iter().chain(SECTION_LABELS) {
            let mut capital = l.chars();
            let capital: String = capital
                .next()
                .into_iter()
                .flat_map(char::to_uppercase)
                .chain(capital)
                .collect();
            for s in [
                l.to_string(),
                l.to_uppercase(),
                capital.clone(),
                format!("{capital}:"),
            ] {
                assert!(is_label(&s), "{s:?}");
                assert_eq!(is_section_label(&s), SECTION_LABELS.contains(l), "{s:?}");
            }
        }
    }

    #[test]
    fn no_label_is_longer_than_the_quick_test_allows() {
        for l in LABELS.iter().chain(SECTION_LABELS) {
            assert!(l.len() <= LONGEST_LABEL, "{l}");
            assert_eq!(*l, l.to_lowercase(), "{l}");
        }
    }

    #[test]
    fn labels_are_matched_whole() {
        for s in [
            "Advertisement",
            "  ADVERTISEMENT ",
            "TRENDING:",
            "Related Tags:",
            "Post Comment (+)",
            "See more photos:",
            "This slideshow requires JavaScript.",
            "Teilen Sie dies mit:",
            "Ähnliche Beiträge",
            "Most Popular\n  Articles",
            "Continue reading below…",
            "Table of Contents",
            "Spis treści:",
            "Was this page helpful?",
            "Share this post",
            "Be the first to comment",
        ] {
            assert!(is_label(s), "{s:?}");
        }
        for s in [
            "Comments on the draft standard",
            "Advertisement revenue fell by a third in the quarter.",
            "Share prices",
            "See also",
            "Related work",
            "Contents of the package",
            "What do you think of the new rules?",
            "Was this helpful to the team in the end?",
            "Table of contents of the second volume, with its appendices",
            "",
            "Email us at the address below and we will reply within a week.",
        ] {
            assert!(!is_label(s), "{s:?}");
        }
    }

    #[test]
    fn section_labels_head_other_stories() {
        for s in [
            "Our Latest Stories",
            "More from The Verge",
            "Related Articles:",
            "Ähnliche Beiträge",
        ] {
            assert!(is_section_label(s), "{s:?}");
        }
        for s in [
            "Advertisement",
            "More from the archive of the city council's minutes",
            "Comments",
        ] {
            assert!(!is_section_label(s), "{s:?}");
        }
    }

    #[test]
    fn date_lines_hold_a_date_and_few_other_words() {
        for s in [
            "Posted: Fri 6:45 PM, Feb 16, 2018 |",
            "Updated: Sat 8:31 PM, Feb 17, 2018",
            "Updated 10:01 pm PST, Tuesday, November 19, 2019",
            "November 18, 2019 | 4:10pm",
            "LinkNaija August 08, 2018",
            "Jose Altoveros 2019-11-20 14:35:08",
            "Posted at 2013-12-30T14:42:01-0700",
            "and last updated 2013-12-30 16:42:01-05",
            "First Published: Tuesday, November 19, 2019 08:38 AM",
            "19.11.2019 um 10:42 Uhr",
            // In the other languages a date line is written in.
            "Sexta-feira, 4 de outubro de 2019 às 10:30",
            "Posted on Maret 3, 2019 by admin",
            "12 października 2021, godz. 10:15",
            "3 maggio 2020 alle ore 18:00",
            "14 сентября 2022, 12:30",
            "4 mei 2021 om 09:12",
        ] {
            assert!(is_label(s), "{s:?}");
        }
        // A reading time is a label of the story too.
        for s in [
            "5 min read",
            "Reading time: 4 minutes",
            "Lesezeit: 3 Minuten",
            "Tempo de leitura: 1 minuto",
            "Czas czytania: 2 min",
        ] {
            assert!(is_label(s), "{s:?}");
        }
        for s in [
            "It takes 5 minutes to read the whole report aloud.",
            "Rated 4 out of 5",
            "Cook for 20 minutes, stirring twice.",
            "Maj 12 was the warmest night in the valley since the records began, said the office.",
        ] {
            assert!(!is_label(s), "{s:?}");
        }
        for s in [
            // No date: a number is not one.
            "Version 2.0 adds 12 new functions",
            "10 p.m.",
            // A date in a sentence.
            "The law came into force on 1 May 2018 after a vote in parliament.",
            "Released on 2019-11-20 with many fixes to the parser and the writer",
            // A version is not a date.
            "Python 3.11.4",
            "1.2.3",
            // A release's heading and a build's stamp: a date, and a version or a hash.
            "Release 2.4.1 on 2021-06-30",
            "Changes in version 1.8.0 (2020-11-02):",
            "v4.2 released June 3, 2021",
            "Build 7f3a9c21e0 of 2022-01-15 09:30",
        ] {
            assert!(!is_label(s), "{s:?}");
        }
        // A date written with dots is no version, and a word of hex letters alone no hash.
        for s in [
            "Updated 05.12.2026 10:42",
            "Posted by deadbeef on March 3, 2020",
        ] {
            assert!(is_label(s), "{s:?}");
        }
    }

    #[test]
    fn bylines_are_by_and_a_name() {
        for s in ["By Leigh Ann Caldwell", "By: CNN Wire", "By J. R. Smith"] {
            assert!(is_label(s), "{s:?}");
        }
        for s in [
            "By default the parser reads UTF-8.",
            "By default",
            "By the time the train left, we were gone",
            "Bystanders",
        ] {
            assert!(!is_label(s), "{s:?}");
        }
    }
}
