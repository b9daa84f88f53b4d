//! Near-duplicates of the content by default: pages that share only their site's template are
//! kept, copies of a page are removed (a login page's too, compared on its full text), an
//! index page is not removed for the page of one of its posts, `--text full` is CopyCat's
//! full-text definition, and the mode is recorded where a user looks for it.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::{nd, response};

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Words of a text no other seed shares.
fn words(seed: usize, n: usize) -> String {
    (0..n)
        .map(|i| format!("t{}q{}", (i * 7919 + seed * 104_729) % 9973, seed % 7))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A shop's page: a template of navigation, a sidebar and a footer (about 540 words, the
/// same on every page) around `content`.
fn shop_page(title: &str, content: &str) -> String {
    let mut nav = String::new();
    for i in 0..80 {
        let _ = write!(
            nav,
            "<li class=\"menu-item\"><a href=\"/c/{i}\">Category {i} gifts</a></li>"
        );
    }
    format!(
        "<html><head><title>{title}</title></head><body class=\"no-sidebars\">\
         <header class=\"site-header\"><ul class=\"menu\">{nav}</ul></header>\
         <div class=\"wrap\"><div class=\"content\">{content}</div>\
         <aside class=\"sidebar\"><p>{}</p></aside></div>\
         <footer><p>{}</p></footer></body></html>",
        words(9001, 150),
        words(9002, 150)
    )
}

fn article(seed: usize) -> String {
    format!(
        "<h1>Item {seed}</h1><p>{}, {}.</p><p>{}, {}.</p>",
        words(seed, 18),
        words(seed + 1, 18),
        words(seed + 2, 18),
        words(seed + 3, 18)
    )
}

const LOGIN: &str = "<form><label>Email</label><input name=e><label>Password</label>\
    <input name=p type=password><button>Sign in</button><a href=/forgot>Forgot it?</a></form>";

/// A crawl of one shop: six product pages, a page copied at a second URL, the login page at
/// two URLs, an index page of three posts and the page of its first post.
fn crawl(dir: &Path) -> std::path::PathBuf {
    let mut data = Vec::new();
    let mut add = |id: &str, url: &str, html: &str| {
        data.extend(response(id, url, html));
    };
    for p in 0..6 {
        add(
            &format!("urn:product{p}"),
            &format!("https://shop.example/p/{p}"),
            &shop_page(&format!("Product {p}"), &article(100 * p + 10)),
        );
    }
    let copied = shop_page("Product 0", &article(10));
    add(
        "urn:product0-copy",
        "https://shop.example/p/0?ref=mail",
        &copied,
    );
    add(
        "urn:login",
        "https://shop.example/login",
        &shop_page("Login", LOGIN),
    );
    add(
        "urn:login-copy",
        "https://shop.example/login?back=cart",
        &shop_page("Login", LOGIN),
    );
    let posts: String = [2000, 3000, 4000]
        .iter()
        .map(|s| format!("<article>{}</article>", article(*s)))
        .collect();
    add(
        "urn:blog-index",
        "https://blog.example/",
        &format!("<html><body><nav><a href=/>Home</a></nav><main>{posts}</main></body></html>"),
    );
    add(
        "urn:blog-post",
        "https://blog.example/2000",
        &format!(
            "<html><body><nav><a href=/>Home</a></nav><article>{}</article></body></html>",
            article(2000)
        ),
    );
    let path = dir.join("shop.warc");
    std::fs::write(&path, data).unwrap();
    path
}

fn removed(out: &Path) -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = read(&out.join("remove.tsv"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect();
    r.sort();
    r
}

#[test]
fn pages_that_share_only_their_template_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let warc = crawl(dir.path());
    let main = dir.path().join("main");
    nd("-q dedup {} -o {}", &[&warc, &main]).ok();
    assert_eq!(
        removed(&main),
        [
            ("urn:login-copy".to_string(), "urn:login".to_string()),
            ("urn:product0-copy".to_string(), "urn:product0".to_string()),
        ],
        "by default only the copies go"
    );
    // The mode is recorded, and the pages compared on their full text are counted per site.
    let summary: serde_json::Value =
        serde_json::from_str(&read(&main.join("summary.json"))).unwrap();
    assert_eq!(summary["fingerprint"]["params"]["text"], "main");
    assert!(summary["fingerprint"]["params"]["text_extractor"]
        .as_str()
        .unwrap()
        .starts_with("main-content"));
    assert_eq!(summary["sites"]["full_text"], 2);
    let sites = read(&main.join("sites.tsv"));
    let header: Vec<&str> = sites.lines().next().unwrap().split('\t').collect();
    let col = header.iter().position(|h| *h == "full_text").unwrap();
    let shop = sites
        .lines()
        .find(|l| l.starts_with("shop.example\t"))
        .unwrap();
    assert_eq!(shop.split('\t').nth(col), Some("2"), "{sites}");
    // CopyCat's full-text definition merges the product pages by their template: what the
    // default is there to avoid.
    let full = dir.path().join("full");
    nd("-q dedup {} -o {} --text full", &[&warc, &full]).ok();
    let gone: Vec<String> = removed(&full).into_iter().map(|r| r.0).collect();
    assert!(gone.len() > 4, "{gone:?}");
    assert!(gone
        .iter()
        .any(|g| g.starts_with("urn:product") && !g.ends_with("copy")));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&full.join("summary.json"))).unwrap();
    assert_eq!(summary["fingerprint"]["params"]["text"], "full");
    assert!(summary["fingerprint"]["params"]
        .get("text_extractor")
        .is_none());
}

#[test]
fn text_shows_what_each_mode_reads() {
    let dir = tempfile::tempdir().unwrap();
    let warc = crawl(dir.path());
    let lines = |mode: &str| -> Vec<serde_json::Value> {
        nd("-q text {} --text", &[&warc])
            .arg(mode)
            .ok()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let main = lines("main");
    let full = lines("full");
    assert_eq!(main.len(), 11);
    let of = |v: &[serde_json::Value], id: &str| -> (String, bool) {
        let r = v.iter().find(|r| r["id"] == id).unwrap();
        (
            r["text"].as_str().unwrap().to_string(),
            r["full_text"].as_bool().unwrap(),
        )
    };
    let (index, whole) = of(&main, "urn:blog-index");
    assert!(!whole);
    for post in [2000, 3000, 4000] {
        assert!(index.contains(&format!("Item {post}")), "{index}");
    }
    let (product, whole) = of(&main, "urn:product1");
    assert!(!whole && product.contains("Item 110") && !product.contains("Category 3"));
    let (login, whole) = of(&main, "urn:login");
    assert!(whole && login.contains("Category 3"), "read whole: {login}");
    let (product_full, _) = of(&full, "urn:product1");
    assert!(product_full.contains("Category 3"));
}

#[test]
fn a_main_store_of_an_earlier_extractor_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let warc = crawl(dir.path());
    let store = dir.path().join("store");
    nd("-q fingerprint {} -o {}", &[&warc, &store]).ok();
    let manifest = store.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&read(&manifest)).unwrap();
    m["params"]
        .as_object_mut()
        .unwrap()
        .remove("text_extractor");
    std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
    let e = nd("-q info {}", &[&store]).fails();
    assert!(e.contains("earlier main-content extractor"), "{e}");
}
