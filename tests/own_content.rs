//! A page's own content: blocks a site repeats on pages about other things are the site's,
//! not the page's (`dedup --site-blocks aside`, the default under `--text main`).

use std::fs;
use std::path::Path;

use crate::common::{nd, response, summary_json};

/// Words of their own for page `seed`: `n` words no other page has.
fn own_words(seed: usize, n: usize) -> String {
    (0..n)
        .map(|i| format!("own{seed}w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The section the site repeats on every type page: a trait's provided methods.
fn trait_docs() -> String {
    (0..14)
        .map(|m| {
            format!(
                "<h3>fn method{m}</h3><p>{}</p>",
                (0..24)
                    .map(|i| format!("provided{m}x{i}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect()
}

/// A documentation page: its title, a sentence of its own, and the repeated section.
fn type_page(title: &str, own: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><nav><a href=/>Home</a></nav>\
         <main><h1>{title}</h1><p>{own}</p>{}</main></body></html>",
        trait_docs()
    )
}

/// A page of a site's template with a form and a few words of its own.
fn form_page(title: &str, words: &str) -> String {
    let boiler: String = (0..30)
        .map(|i| {
            format!(
                "<p>{}</p>",
                (0..12)
                    .map(|j| format!("tmpl{i}y{j}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body>{boiler}<form><p>{words}</p></form></body></html>"
    )
}

fn removed(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_to_string(out.join("remove.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    v.sort();
    v
}

/// A documentation site of 30 type pages (a title and 25 words of their own each, and 14
/// paragraphs of a trait's docs that every one repeats), an exact copy of one, a copy of
/// another with one word of its own changed, 8 template pages with forms of a few words, a
/// login page, a sign-up page and a second copy of the login page; written to `dir/site.warc`.
fn documentation_site(dir: &Path) -> std::path::PathBuf {
    let mut data = Vec::new();
    // 30 types of one documentation site: a title and 25 words of their own each, and 14
    // paragraphs of a trait's docs that every one repeats.
    for i in 0..30 {
        let html = type_page(&format!("Struct Type{i}"), &own_words(i, 25));
        data.extend(response(
            &format!("t{i:02}"),
            &format!("https://docs.example/struct.Type{i}.html"),
            &html,
        ));
    }
    // An exact copy of one, and a copy with one word of its own changed (same title): copies
    // as a whole.
    data.extend(response(
        "copy",
        "https://docs.example/old/struct.Type3.html",
        &type_page("Struct Type3", &own_words(3, 25)),
    ));
    let edited = own_words(4, 25).replace("own4w12", "changed");
    data.extend(response(
        "edit",
        "https://docs.example/old/struct.Type4.html",
        &type_page("Struct Type4", &edited),
    ));
    // Template pages whose own text is a few words: a login and a sign-up form, and a second
    // copy of the login page.
    for i in 0..8 {
        let html = form_page(
            &format!("Form {i}"),
            &format!("form {i} asks for field{i} and box{i} of kind{i}"),
        );
        data.extend(response(
            &format!("f{i}"),
            &format!("https://docs.example/form{i}"),
            &html,
        ));
    }
    data.extend(response(
        "login",
        "https://docs.example/login",
        &form_page("Log in", "Log in with your name and password"),
    ));
    data.extend(response(
        "signup",
        "https://docs.example/signup",
        &form_page("Sign up", "Sign up with a name and a password"),
    ));
    data.extend(response(
        "login2",
        "https://docs.example/login?next=/",
        &form_page("Log in", "Log in with your name and password"),
    ));
    let warc = dir.join("site.warc");
    fs::write(&warc, data).unwrap();
    warc
}

#[test]
fn pages_that_share_only_their_sites_section_are_kept_and_copies_still_go() {
    let dir = tempfile::tempdir().unwrap();
    let warc = documentation_site(dir.path());

    let aside = dir.path().join("aside");
    nd("dedup {} -o {} --quiet", &[&warc, &aside]).ok();
    let keep = dir.path().join("keep");
    nd("dedup {} -o {} --quiet --site-blocks keep", &[&warc, &keep]).ok();

    // Compared on what they extract, the type pages are near-duplicates of each other (and
    // the forms of each other): most go.
    let k = removed(&keep);
    assert!(k.len() >= 25, "{k:?}");
    // On their own content, only the copies go: the exact copy, the copy with one word
    // changed (near-identical as a whole) and the second login page.
    // (Which of two copies is kept is the representative rule's choice.)
    let r = removed(&aside);
    assert_eq!(r.len(), 3, "{r:?}");
    assert!(r.contains(&"login2".to_string()), "{r:?}");
    assert!(
        ["copy", "t03"].iter().any(|x| r.contains(&x.to_string())),
        "{r:?}"
    );
    assert!(
        ["edit", "t04"].iter().any(|x| r.contains(&x.to_string())),
        "{r:?}"
    );
    let summary = summary_json(&aside);
    let own = &summary["verification"]["own_content"];
    assert!(own["site_blocks"].as_u64().unwrap() >= 14, "{own}");
    assert!(
        own["pages_with_site_blocks"].as_u64().unwrap() >= 40,
        "{own}"
    );
    assert!(summary["verification"].get("own_content").is_some());
    // explain says what was compared: the copy with one word changed passed as a copy of
    // the whole page, the site's lines named.
    let edited = if r.contains(&"edit".to_string()) {
        "edit"
    } else {
        "t04"
    };
    let said = nd("explain {} {}", &[&aside, &edited]).ok();
    assert!(said.contains("compared: whole texts"), "{said}");
    assert!(said.contains("site's: provided"), "{said}");
    let copied = if r.contains(&"copy".to_string()) {
        "copy"
    } else {
        "t03"
    };
    let said = nd("explain {} {}", &[&aside, &copied]).ok();
    assert!(said.contains("compared: own content"), "{said}");
    let json = nd("explain {} {} --json", &[&aside, &copied]).ok();
    assert!(json.contains("\"removed_lines_aside\": 28"), "{json}");
    // sites.tsv says what each site's pages set aside: the 14 paragraphs and 14 headings of
    // the trait's section on 31 pages at least (the copy's are its site's too).
    let aside_of = |dir: &Path| -> (u64, u64) {
        let t = fs::read_to_string(dir.join("sites.tsv")).unwrap();
        let mut lines = t.lines();
        let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let row: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |n: &str| {
            row[head.iter().position(|h| *h == n).unwrap()]
                .parse()
                .unwrap()
        };
        (col("blocks_aside"), col("words_aside"))
    };
    let (blocks, words) = aside_of(&aside);
    assert!(blocks >= 31 * 28, "{blocks}");
    assert!(words >= 31 * 14 * 24, "{words}");
    assert_eq!(aside_of(&keep), (0, 0));
    let kept = summary_json(&keep);
    assert!(kept["verification"].get("own_content").is_none());
}

/// `explain OUT ID OTHER` answers for any two pages: what the run did with each, and what
/// verification makes of the pair, scored as the run scores it, with the reason in words.
#[test]
fn explain_says_why_two_pages_were_kept_apart_or_put_together() {
    let dir = tempfile::tempdir().unwrap();
    let warc = documentation_site(dir.path());
    let out = dir.path().join("out");
    nd("dedup {} -o {} --quiet", &[&warc, &out]).ok();
    let pair = |a: &str, b: &str| -> serde_json::Value {
        serde_json::from_str(&nd("explain {} {} {} --json", &[&out, &a, &b]).ok()).unwrap()
    };
    let rows: Vec<Vec<String>> = fs::read_to_string(out.join("remove.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();

    // Two type pages about different things: kept apart, their own content unlike, their
    // whole pages (mostly the trait's section) alike but under the copies' 0.95.
    let p = pair("t05", "t06");
    assert_eq!(p["status"], "pair", "{p}");
    assert_eq!(p["together"], false, "{p}");
    assert_eq!(p["near_duplicates"], false, "{p}");
    assert_eq!(p["first"]["status"], "kept", "{p}");
    assert_eq!(p["compared"], "own content", "{p}");
    let parts = &p["parts"];
    assert!(parts["own_s3"].as_f64().unwrap() < 0.82, "{p}");
    assert!(parts["whole_s3"].as_f64().unwrap() > 0.5, "{p}");
    assert!(parts["whole_s3"].as_f64().unwrap() < 0.95, "{p}");
    assert_eq!(p["own_content"]["removed_lines_aside"], 28, "{p}");
    let why = p["why"].as_str().unwrap();
    assert!(
        why.contains("own content's s3") && why.contains("< 0.82"),
        "{why}"
    );
    assert!(why.contains("not near-identical copies"), "{why}");
    // The sign-up page and the login page: one template, near-identical as whole pages, but
    // their few words of their own differ, so they are not copies.
    let p = pair("login", "signup");
    assert_eq!(p["near_duplicates"], false, "{p}");
    let why = p["why"].as_str().unwrap();
    assert!(why.contains("own words' s3"), "{why}");
    // Every removal of the run, asked about as a pair: put together, near-duplicates by the
    // run's rule at the score remove.tsv gives, either way round.
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in &rows {
        for (a, b) in [(&r[0], &r[1]), (&r[1], &r[0])] {
            let p = pair(a, b);
            assert_eq!(p["together"], true, "{p}");
            assert_eq!(p["near_duplicates"], true, "{p}");
            let listed: f64 = r[3].parse().unwrap();
            assert!(
                (p["score"].as_f64().unwrap() - listed).abs() < 5e-7,
                "{p} {r:?}"
            );
        }
    }
    // In words: each page's fate, the verdict and why, the candidates and the diff.
    let said = nd("explain {} t05 t06", &[&out]).ok();
    assert!(said.contains("first:  t05"), "{said}");
    assert!(said.contains("the run did not put them together"), "{said}");
    assert!(said.contains("verdict: not near-duplicates"), "{said}");
    assert!(said.contains("diff, first -> second"), "{said}");
    assert!(said.contains("own5w0"), "{said}");
    // A run that did not verify: the verdict is the default verification's, and says so.
    let unverified = dir.path().join("unverified");
    nd("dedup {} -o {} --quiet --no-verify", &[&warc, &unverified]).ok();
    let p: serde_json::Value =
        serde_json::from_str(&nd("explain {} t05 t06 --json", &[&unverified]).ok()).unwrap();
    let why = p["why"].as_str().unwrap();
    assert!(
        why.starts_with("the run did not verify (--no-verify)"),
        "{why}"
    );
    // ... as the default verification makes it: on the pages' own content.
    assert!(
        why.contains("own content's s3") && why.contains("< 0.82"),
        "{why}"
    );
    assert_eq!(p["compared"], "own content", "{p}");
    assert!(!pair("t05", "t06")["why"]
        .as_str()
        .unwrap()
        .contains("--no-verify"));
    // One page twice, or an id of no page, is refused.
    nd("explain {} t05 t05", &[&out]).fails();
    nd("explain {} t05 no-such-page", &[&out]).fails();
}

#[test]
fn a_few_pages_of_a_host_set_nothing_aside_and_full_text_never_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    // Four pages on one host share the section: below the five titles a block needs.
    for i in 0..4 {
        let html = type_page(&format!("Struct Type{i}"), &own_words(i, 25));
        data.extend(response(
            &format!("t{i}"),
            &format!("https://small.example/t{i}"),
            &html,
        ));
    }
    let warc = dir.path().join("small.warc");
    fs::write(&warc, &data).unwrap();
    let out = dir.path().join("out");
    nd("dedup {} -o {} --quiet", &[&warc, &out]).ok();
    assert_eq!(removed(&out).len(), 3);
    let full = dir.path().join("full");
    nd("dedup {} -o {} --quiet --text full", &[&warc, &full]).ok();
    assert_eq!(removed(&full).len(), 3);
    let summary = fs::read_to_string(full.join("summary.json")).unwrap();
    assert!(!summary.contains("own_content"), "{summary}");
}

#[test]
fn an_older_crawls_pages_count_toward_the_sites_blocks() {
    let dir = tempfile::tempdir().unwrap();
    // The new crawl: four pages of a host that share its section, too few to set it aside
    // alone (the test above: three go).
    let mut new = Vec::new();
    for i in 0..4 {
        let html = type_page(&format!("Struct New{i}"), &own_words(100 + i, 25));
        new.extend(response(
            &format!("n{i}"),
            &format!("https://docs.example/new/struct.New{i}.html"),
            &html,
        ));
    }
    // The older crawl: thirty other pages of the same host with the same section.
    let mut old = Vec::new();
    for i in 0..30 {
        let html = type_page(&format!("Struct Old{i}"), &own_words(i, 25));
        old.extend(response(
            &format!("o{i:02}"),
            &format!("https://docs.example/struct.Old{i}.html"),
            &html,
        ));
    }
    let (new_warc, old_warc) = (dir.path().join("new.warc"), dir.path().join("old.warc"));
    fs::write(&new_warc, &new).unwrap();
    fs::write(&old_warc, &old).unwrap();
    let alone = dir.path().join("alone");
    nd("dedup {} -o {} --quiet", &[&new_warc, &alone]).ok();
    assert_eq!(removed(&alone).len(), 3, "alone, the host is four pages");
    // Against the older crawl the host has 34 pages: the section is the site's, and the new
    // pages, compared on their own words, are all kept.
    let store = dir.path().join("old.store");
    nd(
        "fingerprint {} --minhash -o {} --quiet",
        &[&old_warc, &store],
    )
    .ok();
    let against = dir.path().join("against");
    nd(
        "dedup {} --against {} -o {} --quiet",
        &[&new_warc, &store, &against],
    )
    .ok();
    assert_eq!(removed(&against), Vec::<String>::new());
    let summary = summary_json(&against);
    let own = &summary["verification"]["own_content"];
    assert!(own["site_blocks"].as_u64().unwrap() > 0, "{own}");
}

/// A site section of its own kind: `n` paragraphs of words no other section has.
fn section(kind: usize) -> String {
    (0..14)
        .map(|m| {
            format!(
                "<h3>fn k{kind}m{m}</h3><p>{}</p>",
                (0..24)
                    .map(|i| format!("kind{kind}p{m}x{i}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect()
}

/// Two pages whose own content is one text but whose main regions carry different sections
/// of their site share no MinHash band key; the line of their own they share makes them
/// candidates, and verification on their own content finds them near-duplicates.
#[test]
fn pages_alike_in_their_own_content_are_candidates_whatever_their_site_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    // 40 pages of one site, half repeating section 1, half section 2, each with its own text.
    for i in 0..40 {
        let html = format!(
            "<html><head><title>Page {i}</title></head><body><main><h1>Page {i}</h1><p>{}</p>{}</main></body></html>",
            own_words(i, 30),
            section(1 + i % 2)
        );
        data.extend(response(
            &format!("p{i:02}"),
            &format!("https://docs.example/p{i}.html"),
            &html,
        ));
    }
    // The same own text as page 0 (section 1), under another title and with section 2.
    let twin = format!(
        "<html><head><title>Page 0 moved</title></head><body><main><h1>Page 0 moved</h1><p>{}</p>{}</main></body></html>",
        own_words(0, 30),
        section(2)
    );
    data.extend(response(
        "twin",
        "https://docs.example/moved/p0.html",
        &twin,
    ));
    let warc = dir.path().join("site.warc");
    fs::write(&warc, data).unwrap();
    let aside = dir.path().join("aside");
    let said = nd("dedup {} -o {}", &[&warc, &aside]).ok();
    let r = removed(&aside);
    assert!(r == ["p00"] || r == ["twin"], "{r:?}\n{said}");
    // explain says how they became candidates: not by a band key (their main regions are
    // mostly different sections), by the line of their own.
    let out = nd("explain {} {}", &[&aside, &std::path::PathBuf::from(&r[0])]).ok();
    assert!(
        out.contains("0 of 40 MinHash band keys shared")
            && out.contains("1 lines of their own shared"),
        "{out}"
    );
}

/// A page of a small shop's template: a menu, a long legal footer, and a form whose words
/// (with the title) are under the 20 a main content needs, so the page is read whole.
fn shop_form(title: &str, words: &str, footer_word: &str) -> String {
    let menu: String = (0..20)
        .map(|i| format!("<li><a href=/m{i}>menu{i} item{i}</a></li>"))
        .collect();
    let legal: Vec<String> = (0..150)
        .map(|i| {
            if i == 75 {
                footer_word.to_string()
            } else {
                format!("legal{i}")
            }
        })
        .collect();
    format!(
        "<html><head><title>{title}</title></head><body><nav><ul>{menu}</ul></nav>\
         <main><h1>{title}</h1><form><p>{words}</p><input name=a></form></main>\
         <footer><p>{}</p></footer></body></html>",
        legal.join(" ")
    )
}

#[test]
fn pages_read_whole_go_only_as_near_identical_copies_of_a_whole_page() {
    let dir = tempfile::tempdir().unwrap();
    let login = "Enter the name of your account and its secret word to reach your orders";
    let mut data = Vec::new();
    for (id, url, html) in [
        (
            "login",
            "https://shop.example/login",
            shop_form("Log in", login, "legal75"),
        ),
        // The sign-up form of the same template: its whole text is about 0.9 alike to the
        // login page's (S3), but its own words are others.
        (
            "signup",
            "https://shop.example/signup",
            shop_form(
                "Sign up",
                "Choose a new name for an account then pick a secret word to begin",
                "legal75",
            ),
        ),
        // The login page again, one word of its footer different: a near-identical copy.
        (
            "login2",
            "https://shop.example/login?next=/",
            shop_form("Log in", login, "changed"),
        ),
    ] {
        data.extend(response(id, url, &html));
    }
    let warc = dir.path().join("shop.warc");
    fs::write(&warc, &data).unwrap();
    let text = nd("text {}", &[&warc]).ok();
    assert_eq!(text.matches("\"full_text\":true").count(), 3, "{text}");

    let out = dir.path().join("out");
    nd("dedup {} -o {} --quiet", &[&warc, &out]).ok();
    let r = removed(&out);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(["login", "login2"].contains(&r[0].as_str()), "{r:?}");
    let said = nd("explain {} {}", &[&out, &r[0]]).ok();
    assert!(said.contains("compared: whole texts"), "{said}");
    assert!(
        said.contains("on the whole pages, own words alike"),
        "{said}"
    );
    assert!(
        said.contains("read whole (main content under 20 words or a sliver of the page, no own content): the removed page, the kept page"),
        "{said}"
    );
    // Without own content the sign-up page is compared on its whole text at the
    // threshold, and goes as a near-duplicate of the login page.
    let keep = dir.path().join("keep");
    nd("dedup {} -o {} --quiet --site-blocks keep", &[&warc, &keep]).ok();
    assert!(removed(&keep).contains(&"signup".to_string()));
}

/// A page of a small site with its notice: a home page of teasers, or a form page, whose one
/// block of prose is a notice every page of the site carries (shown by its script).
fn page_with_notice(title: &str, body: &str) -> String {
    let notice = "Please note that you are now leaving the website of the centre for global \
                  policy and entering the website of another of the foundation's centres around \
                  the world, whose pages are kept by another office in another city";
    format!(
        "<html><head><title>{title}</title></head><body><div id=top><h1>{title}</h1></div>\
         {body}<div id=leaving><div class=notice><strong>Please note</strong><p>{notice}</p>\
         </div></div></body></html>"
    )
}

#[test]
fn a_page_whose_main_content_is_a_sliver_of_it_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    // The home page: teasers, each a linked headline with its own line of linked words.
    let teasers: String = (0..60)
        .map(|i| {
            format!(
                "<div class=slide><a href=/story{i}>{} story number {i} of the week</a>\
                 <a href=/story{i}>read the rest of this story{i} about {}</a></div>",
                own_words(i, 6),
                own_words(i + 100, 8)
            )
        })
        .collect();
    // The sign-up page: a form of many labelled fields.
    let fields: String = (0..100)
        .map(|i| {
            format!(
                "<label>field{i} {}</label><input name=f{i}>",
                own_words(i + 300, 6)
            )
        })
        .collect();
    let mut data = Vec::new();
    for (id, url, html) in [
        (
            "home",
            "https://centre.example/",
            page_with_notice("The centre", &teasers),
        ),
        (
            "register",
            "https://centre.example/register",
            page_with_notice("Register", &format!("<form>{fields}</form>")),
        ),
    ] {
        data.extend(response(id, url, &html));
    }
    let warc = dir.path().join("centre.warc");
    fs::write(&warc, &data).unwrap();
    // Each page's main content, were it taken, would be the notice: both are read whole.
    let text = nd("text {}", &[&warc]).ok();
    assert_eq!(text.matches("\"full_text\":true").count(), 2, "{text}");
    assert!(text.contains("story number 7"), "{text}");
    let out = dir.path().join("out");
    nd("dedup {} -o {} --quiet", &[&warc, &out]).ok();
    assert!(removed(&out).is_empty(), "{:?}", removed(&out));
}

/// A page of `words` under `title`: a short menu, and the words as its main content.
fn titled_page(title: &str, words: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><nav><a href=/>Home</a></nav>\
         <main><p>{words}</p></main></body></html>"
    )
}

#[test]
fn a_pages_title_is_compared_before_its_main_content_without_the_sites_name() {
    let dir = tempfile::tempdir().unwrap();
    // Two generated items of one crate: the same one sentence of documentation (20 words),
    // titles that name different items.
    let doc = own_words(0, 20);
    let mut data = response(
        "alpha",
        "https://docs.example/static.ALPHA_BETA_GAMMA_DELTA_INIT.html",
        &titled_page("Alpha Beta Gamma Delta Init in crate - Docs", &doc),
    );
    data.extend(response(
        "zeta",
        "https://docs.example/static.ZETA_ETA_THETA_IOTA_INIT.html",
        &titled_page("Zeta Eta Theta Iota Init in crate - Docs", &doc),
    ));
    // One page on two sites: titles that differ by the site's name only (its host's, with or
    // without the last label, or the one its head declares).
    let form = own_words(1, 20);
    data.extend(response(
        "cipir",
        "http://juragancipir.example/lostpassword/",
        &titled_page("Lost Password ~ Juragan Cipir", &form),
    ));
    data.extend(response(
        "phuket",
        "http://www.excursionphuket.example/wp-login.php",
        &titled_page("excursionphuket.example \u{203a} Lost Password", &form),
    ));
    let declared = titled_page("Lost Password | The Coast Times", &form).replace(
        "<title>",
        "<meta property=og:site_name content='The Coast Times'><title>",
    );
    data.extend(response("coast", "https://coast.example/login", &declared));
    let warc = dir.path().join("pages.warc");
    fs::write(&warc, data).unwrap();

    let out = dir.path().join("out");
    nd("dedup {} -o {} --quiet", &[&warc, &out]).ok();
    assert_eq!(removed(&out), ["coast", "phuket"]);
    // `neardup text` prints the title lines apart from the main content.
    let lines = nd("text {} --text main", &[&warc]).ok();
    let rows: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(
        row("alpha")["title"],
        "Alpha Beta Gamma Delta Init in crate"
    );
    // The two items' main contents are one text: only their titles tell them apart.
    assert_eq!(row("alpha")["text"], doc.as_str());
    assert_eq!(row("zeta")["text"], doc.as_str());
    assert_eq!(row("phuket")["title"], "Lost Password");
    assert_eq!(row("coast")["title"], "Lost Password");
}
