//! The original Porter (1980) stemmer, as Lucene's `PorterStemFilter` (and so Anserini) runs it.
//!
//! This follows Martin Porter's reference C implementation including its two documented
//! departures that Lucene also carries (`bli -> ble` in place of `abli -> able`, and
//! `logi -> log`), and the rule that words of one or two letters are left alone. It works in
//! place on lowercase ASCII bytes; callers leave other tokens unstemmed.

/// Stems `word` (lowercase ASCII) in place and returns the new length.
pub fn stem(word: &mut [u8]) -> usize {
    if word.len() <= 2 {
        return word.len();
    }
    let mut s = Stemmer {
        b: word,
        k: 0,
        j: 0,
    };
    s.k = s.b.len() - 1;
    s.step1ab();
    if s.k > 0 {
        s.step1c();
        s.step2();
        s.step3();
        s.step4();
        s.step5();
    }
    s.k + 1
}

/// Stems an owned string; convenience for tests and one-off callers.
pub fn stem_str(word: &str) -> String {
    let mut bytes = word.as_bytes().to_vec();
    if !bytes.is_ascii() {
        return word.to_string();
    }
    let n = stem(&mut bytes);
    bytes.truncate(n);
    String::from_utf8(bytes).unwrap_or_default()
}

struct Stemmer<'a> {
    b: &'a mut [u8],
    /// Index of the last letter of the current word.
    k: usize,
    /// Index of the last letter of the stem before the suffix matched by `ends`.
    j: usize,
}

impl Stemmer<'_> {
    fn cons(&self, i: usize) -> bool {
        match self.b[i] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !self.cons(i - 1),
            _ => true,
        }
    }

    /// Number of VC sequences in b[0..=j].
    fn m(&self) -> usize {
        let j = self.j as isize;
        let mut n = 0;
        let mut i: isize = 0;
        loop {
            if i > j {
                return n;
            }
            if !self.cons(i as usize) {
                break;
            }
            i += 1;
        }
        i += 1;
        loop {
            loop {
                if i > j {
                    return n;
                }
                if self.cons(i as usize) {
                    break;
                }
                i += 1;
            }
            i += 1;
            n += 1;
            loop {
                if i > j {
                    return n;
                }
                if !self.cons(i as usize) {
                    break;
                }
                i += 1;
            }
            i += 1;
        }
    }

    fn vowel_in_stem(&self) -> bool {
        (0..=self.j).any(|i| !self.cons(i))
    }

    fn doublec(&self, j: usize) -> bool {
        j >= 1 && self.b[j] == self.b[j - 1] && self.cons(j)
    }

    fn cvc(&self, i: usize) -> bool {
        if i < 2 || !self.cons(i) || self.cons(i - 1) || !self.cons(i - 2) {
            return false;
        }
        !matches!(self.b[i], b'w' | b'x' | b'y')
    }

    /// True when b[0..=k] ends with `s`; then `j` marks the end of the stem before it.
    fn ends(&mut self, s: &[u8]) -> bool {
        let len = s.len();
        if len > self.k + 1 {
            return false;
        }
        if &self.b[self.k + 1 - len..=self.k] != s {
            return false;
        }
        // A suffix as long as the word leaves an empty stem; `j` wraps to usize::MAX there,
        // which every reader of `j` treats as "no stem" through the checks below.
        self.j = (self.k + 1 - len).wrapping_sub(1);
        true
    }

    fn stem_is_empty(&self) -> bool {
        self.j == usize::MAX
    }

    fn setto(&mut self, s: &[u8]) {
        let start = self.j.wrapping_add(1);
        self.b[start..start + s.len()].copy_from_slice(s);
        self.k = start + s.len() - 1;
    }

    fn r(&mut self, s: &[u8]) {
        if !self.stem_is_empty() && self.m() > 0 {
            self.setto(s);
        }
    }

    fn step1ab(&mut self) {
        if self.b[self.k] == b's' {
            if self.ends(b"sses") {
                self.k -= 2;
            } else if self.ends(b"ies") {
                self.setto(b"i");
            } else if self.b[self.k - 1] != b's' {
                self.k -= 1;
            }
        }
        if self.ends(b"eed") {
            if !self.stem_is_empty() && self.m() > 0 {
                self.k -= 1;
            }
        } else if (self.ends(b"ed") || self.ends(b"ing"))
            && !self.stem_is_empty()
            && self.vowel_in_stem()
        {
            self.k = self.j;
            if self.ends(b"at") {
                self.setto(b"ate");
            } else if self.ends(b"bl") {
                self.setto(b"ble");
            } else if self.ends(b"iz") {
                self.setto(b"ize");
            } else if self.doublec(self.k) {
                self.k -= 1;
                if matches!(self.b[self.k], b'l' | b's' | b'z') {
                    self.k += 1;
                }
            } else {
                self.j = self.k;
                if self.m() == 1 && self.cvc(self.k) {
                    self.setto(b"e");
                }
            }
        }
    }

    fn step1c(&mut self) {
        if self.ends(b"y") && !self.stem_is_empty() && self.vowel_in_stem() {
            self.b[self.k] = b'i';
        }
    }

    /// Tries each (suffix, replacement) in order; the first suffix that matches decides.
    fn rules(&mut self, table: &[(&[u8], &[u8])]) {
        for (suffix, repl) in table {
            if self.ends(suffix) {
                self.r(repl);
                return;
            }
        }
    }

    fn step2(&mut self) {
        let table: &[(&[u8], &[u8])] = match self.b[self.k - 1] {
            b'a' => &[(b"ational", b"ate"), (b"tional", b"tion")],
            b'c' => &[(b"enci", b"ence"), (b"anci", b"ance")],
            b'e' => &[(b"izer", b"ize")],
            b'l' => &[
                (b"bli", b"ble"),
                (b"alli", b"al"),
                (b"entli", b"ent"),
                (b"eli", b"e"),
                (b"ousli", b"ous"),
            ],
            b'o' => &[(b"ization", b"ize"), (b"ation", b"ate"), (b"ator", b"ate")],
            b's' => &[
                (b"alism", b"al"),
                (b"iveness", b"ive"),
                (b"fulness", b"ful"),
                (b"ousness", b"ous"),
            ],
            b't' => &[(b"aliti", b"al"), (b"iviti", b"ive"), (b"biliti", b"ble")],
            b'g' => &[(b"logi", b"log")],
            _ => return,
        };
        self.rules(table);
    }

    fn step3(&mut self) {
        let table: &[(&[u8], &[u8])] = match self.b[self.k] {
            b'e' => &[(b"icate", b"ic"), (b"ative", b""), (b"alize", b"al")],
            b'i' => &[(b"iciti", b"ic")],
            b'l' => &[(b"ical", b"ic"), (b"ful", b"")],
            b's' => &[(b"ness", b"")],
            _ => return,
        };
        self.rules(table);
    }

    fn step4(&mut self) {
        let suffixes: &[&[u8]] = match self.b[self.k - 1] {
            b'a' => &[b"al"],
            b'c' => &[b"ance", b"ence"],
            b'e' => &[b"er"],
            b'i' => &[b"ic"],
            b'l' => &[b"able", b"ible"],
            b'n' => &[b"ant", b"ement", b"ment", b"ent"],
            b'o' => {
                if self.ends(b"ion")
                    && !self.stem_is_empty()
                    && matches!(self.b[self.j], b's' | b't')
                {
                    return self.drop_suffix_if_long();
                }
                &[b"ou"]
            }
            b's' => &[b"ism"],
            b't' => &[b"ate", b"iti"],
            b'u' => &[b"ous"],
            b'v' => &[b"ive"],
            b'z' => &[b"ize"],
            _ => return,
        };
        if suffixes.iter().any(|s| self.ends(s)) {
            self.drop_suffix_if_long();
        }
    }

    fn drop_suffix_if_long(&mut self) {
        if !self.stem_is_empty() && self.m() > 1 {
            self.k = self.j;
        }
    }

    fn step5(&mut self) {
        self.j = self.k;
        if self.b[self.k] == b'e' {
            let a = self.m();
            if a > 1 || (a == 1 && !self.cvc(self.k - 1)) {
                self.k -= 1;
            }
        }
        if self.b[self.k] == b'l' && self.doublec(self.k) && self.m() > 1 {
            self.k -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::stem_str;

    /// Pairs from Porter's paper and the reference vocabulary (voc.txt / output.txt).
    #[test]
    fn reference_pairs() {
        let pairs = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("valenci", "valenc"),
            ("hesitanci", "hesit"),
            ("digitizer", "digit"),
            ("conformabli", "conform"),
            ("radicalli", "radic"),
            ("differentli", "differ"),
            ("vileli", "vile"),
            ("analogousli", "analog"),
            ("vietnamization", "vietnam"),
            ("predication", "predic"),
            ("operator", "oper"),
            ("feudalism", "feudal"),
            ("decisiveness", "decis"),
            ("hopefulness", "hope"),
            ("callousness", "callous"),
            ("formaliti", "formal"),
            ("sensitiviti", "sensit"),
            ("sensibiliti", "sensibl"),
            ("triplicate", "triplic"),
            ("formative", "form"),
            ("formalize", "formal"),
            ("electriciti", "electr"),
            ("electrical", "electr"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("inference", "infer"),
            ("airliner", "airlin"),
            ("gyroscopic", "gyroscop"),
            ("adjustable", "adjust"),
            ("defensible", "defens"),
            ("irritant", "irrit"),
            ("replacement", "replac"),
            ("adjustment", "adjust"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("homologou", "homolog"),
            ("communism", "commun"),
            ("activate", "activ"),
            ("angulariti", "angular"),
            ("homologous", "homolog"),
            ("effective", "effect"),
            ("bowdlerize", "bowdler"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
            ("generalizations", "gener"),
            ("oscillators", "oscil"),
            ("archaeology", "archaeolog"),
            ("abilities", "abil"),
            ("is", "is"),
            ("as", "as"),
            ("a", "a"),
            ("ing", "ing"),
            ("ed", "ed"),
            ("sses", "ss"),
            ("ies", "i"),
        ];
        for (w, want) in pairs {
            assert_eq!(stem_str(w), want, "stem({w})");
        }
    }

    #[test]
    fn never_panics_on_short_or_odd_words() {
        for w in [
            "", "s", "ss", "eed", "ing", "ation", "ational", "y", "yed", "ying", "e", "ll",
        ] {
            let _ = stem_str(w);
        }
        let letters = b"aeiouysltnbd";
        // Every 3- and 4-letter word over a small alphabet, to shake out index arithmetic.
        for a in letters {
            for b in letters {
                for c in letters {
                    let w = [*a, *b, *c];
                    let _ = stem_str(std::str::from_utf8(&w).unwrap());
                    for d in letters {
                        let w = [*a, *b, *c, *d];
                        let _ = stem_str(std::str::from_utf8(&w).unwrap());
                    }
                }
            }
        }
    }
}
