//! Documentation pages: API pages, declarations, tables, summaries and DocBook entries.

use super::*;

/// An API page as rustdoc writes it: each method's signature is a heading marked
/// `code-header` (and each section's title `section-header`), and the trait
/// implementations, one long list of the trait's provided methods, outweigh the type's
/// description and its own methods above them in the same `main`. The signatures are text
/// of the content (a heading marked a header is not the page's header), and the whole
/// `main` is the content: what it holds beside the implementations reads as text.
#[test]
fn an_api_page_keeps_its_signatures_and_its_description_beside_long_trait_docs() {
    let provided = each(60, |i| {
        format!(
                "<details class=\"toggle method-toggle\" open><summary><section id=\"method.m{i}\" class=\"method trait-impl\">\
                 <a class=\"src rightside\" href=\"s.html\">Source</a><h4 class=\"code-header\">fn <a href=\"#method.m{i}\" class=\"fn\">method_{i}</a>(self) -&gt; \
                 <a href=\"o.html\">Option</a>&lt;Self::Item&gt;</h4></section></summary>\
                 <div class=\"docblock\">Provided method {i} consumes the iterator, folding every element into an accumulator, and returns the result. <a href=\"x\">Read more</a></div></details>"
            )
    });
    let html = format!(
        "<html><body><nav class=\"sidebar\"><a href=\"/\">crate</a></nav><main><div class=\"width-limiter\"><section id=\"main-content\" class=\"content\">\
         <div class=\"main-heading\"><h1>Struct <span class=\"struct\">Needles</span></h1></div>\
         <pre class=\"rust item-decl\"><code>pub struct Needles&lt;'h&gt; {{ /* private fields */ }}</code></pre>\
         <details class=\"toggle top-doc\" open><summary class=\"hideme\"><span>Expand description</span></summary><div class=\"docblock\">\
         <p>An iterator over all occurrences of a single byte in a haystack, from the front or from the back.</p></div></details>\
         <h2 id=\"implementations\" class=\"section-header\">Implementations</h2><div id=\"implementations-list\"><details class=\"toggle implementors-toggle\" open><summary>\
         <section class=\"impl\"><h3 class=\"code-header\">impl&lt;'h&gt; <a href=\"#\">Needles</a>&lt;'h&gt;</h3></section></summary><div class=\"impl-items\">\
         <section id=\"method.new\" class=\"method\"><h4 class=\"code-header\">pub fn <a href=\"#method.new\" class=\"fn\">new</a>(needle: u8, haystack: &amp;'h [u8]) -&gt; Needles&lt;'h&gt;</h4></section>\
         <div class=\"docblock\"><p>Returns an iterator over all occurrences of the needle byte in the given haystack.</p></div></div></details></div>\
         <h2 id=\"trait-implementations\" class=\"section-header\">Trait Implementations</h2><div id=\"trait-implementations-list\">\
         <details class=\"toggle implementors-toggle\" open><summary><section class=\"impl\"><h3 class=\"code-header\">impl&lt;'h&gt; <a href=\"i.html\">Iterator</a> for Needles&lt;'h&gt;</h3></section></summary>\
         <div class=\"impl-items\">{provided}</div></details></div></section></div></main></body></html>"
    );
    let text = main_text(&html);
    assert!(
        text.contains("pub fn new(needle: u8, haystack: &'h [u8]) -> Needles<'h>"),
        "{text}"
    );
    assert!(
        text.contains("fn method_7(self) -> Option<Self::Item>"),
        "{text}"
    );
    assert!(text.contains("An iterator over all occurrences"), "{text}");
    assert!(text.contains("Returns an iterator over all"), "{text}");
    assert!(text.contains("Provided method 59"), "{text}");
    assert!(!text.contains("crate"), "{text}");
}

/// A declaration whose names are all links (rustdoc's type alias `pub type U5 = UInt<...>`,
/// each type a link to its page) is code, not a list of links: a block in a `pre` is never
/// left out as one, so the page's main content holds its declaration. A line of the same
/// links outside a `pre` still is one.
#[test]
fn a_declaration_of_links_in_pre_is_code_not_a_list_of_links() {
    let ty = |name: &str| {
        format!("<a class=\"struct\" href=\"../uint/struct.{name}.html\" title=\"struct typenum::uint::{name}\">{name}</a>")
    };
    let decl = format!(
        "pub type U5 = {u}&lt;{u}&lt;{u}&lt;{t}, {b1}&gt;, {b0}&gt;, {b1}&gt;;",
        u = ty("UInt"),
        t = ty("UTerm"),
        b1 = ty("B1"),
        b0 = ty("B0")
    );
    let html = format!(
        "<html><body><nav class=\"sidebar\"><a href=\"/\">typenum</a></nav><main><section id=\"main-content\" class=\"content\">\
         <div class=\"main-heading\"><h1>Type Alias <span class=\"type\">U5</span></h1></div>\
         <pre class=\"rust item-decl\"><code>{decl}</code></pre>\
         <h2 id=\"aliased-type\" class=\"section-header\">Aliased Type</h2>\
         <pre class=\"rust item-decl\"><code>pub struct U5 {{ /* private fields */ }}</code></pre>\
         <div class=\"see\">{u} {t} {b1} {b0}</div></section></main></body></html>",
        u = ty("UInt"),
        t = ty("UTerm"),
        b1 = ty("B1"),
        b0 = ty("B0")
    );
    let text = main_text(&html);
    assert!(
        text.contains("pub type U5 = UInt<UInt<UInt<UTerm, B1>, B0>, B1>;"),
        "{text}"
    );
    assert!(text.contains("pub struct U5"), "{text}");
    assert!(!text.contains("UInt UTerm B1 B0"), "{text}");
}

#[test]
fn lists_of_links_do_not_outscore_the_description_by_their_commas() {
    let names = [
        "addFocusListener",
        "contains",
        "getAccessibleAt",
        "getBackground",
        "getBounds",
        "getCursor",
        "getFont",
        "getFontMetrics",
        "getForeground",
        "getLocation",
        "getLocationOnScreen",
        "getSize",
        "isEnabled",
        "isFocusTraversable",
        "isShowing",
        "isVisible",
        "removeFocusListener",
        "requestFocus",
        "setBackground",
        "setBounds",
        "setCursor",
        "setEnabled",
        "setFont",
        "setForeground",
        "setLocation",
        "setSize",
        "setVisible",
    ];
    let inherited: String = ["AccessibleContext", "AccessibleComponent", "AccessibleAWTComponent"]
        .iter()
        .map(|c| {
            let links: Vec<String> = names
                .iter()
                .map(|m| format!("<a href=\"{c}.html#{m}()\">{m}</a>"))
                .collect();
            format!(
                "<div class=\"inherited-list\"><h3>Methods declared in class&nbsp;javax.accessibility.<a href=\"{c}.html\">{c}</a></h3><code>{}</code></div>",
                links.join(", ")
            )
        })
        .collect();
    let html = format!(
        "<html><body><header><nav><a href=/>Overview</a></nav></header><main role=\"main\">\
         <section class=\"class-description\"><div class=\"block\">This class implements accessibility support for the <code>JProgressBar</code> class. \
         It provides an implementation of the Java Accessibility API appropriate to progress bar user-interface elements. \
         <p>Serialized objects of this class will not be compatible with future releases, and the current serialization support is appropriate for short term storage.</div></section>\
         <section class=\"summary\"><ul class=\"summary-list\"><li><section class=\"method-summary\">{inherited}</section></li></ul></section></main></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("implements accessibility support"), "{text}");
    assert!(!text.contains("setVisible"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A package page of an API site: its table of classes holds about two thirds of the
/// declared `main`, its description (sentences with linked names in them) and the related
/// packages the rest. The description is the page's own, what tells it from the package's
/// use page, which lists the same classes with the same descriptions.
#[test]
fn a_table_of_two_thirds_of_a_declared_main_brings_the_main() {
    let rows = each(24, |k| {
        format!("<div class=col-first><a href=E{k}.html>Kind{k}Event</a></div><div class=col-last><div class=block>Notification of an event of kind {k} in the target VM.</div></div>")
    });
    let html = format!(
        "<html><body><nav><a href=/>Overview</a><a href=/p>Package</a></nav><main role=main>\
         <div class=header><h1>Package com.sun.jdi.event</h1></div>\
         <section class=package-description><div class=block>This package defines JDI events and event processing. \
         An <a href=Event.html>Event</a> is always a member of an <a href=EventSet.html>EventSet</a>, which is retrieved \
         from the <a href=EventQueue.html>EventQueue</a>. Examples of events include <a href=B.html>breakpoint events</a>, \
         <a href=T.html>thread creation events</a> and <a href=D.html>virtual machine death events</a>. With the exception \
         of termination events, all events received must be requested with an <a href=R.html>EventRequest</a>. The \
         <a href=r.html>com.sun.jdi.request</a> package defines event requests and event request management.\
         <p>Methods may be added to the interfaces in the JDI packages in future releases. Existing packages may be \
         renamed if the JDI becomes a standard extension.</div></section>\
         <section class=summary><ul class=summary-list><li><div id=related-package-summary><div class=caption>Related Packages</div>\
         <div class=summary-table><div class=col-first><a href=../package-summary.html>com.sun.jdi</a></div>\
         <div class=col-last><div class=block>This is the core package of the Java Debug Interface.</div></div></div></div></li>\
         <li><div id=class-summary><div class=caption>Interfaces</div><div class=summary-table>{rows}</div></div></li></ul></section>\
         </main></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("defines JDI events"), "{text}");
    assert!(text.contains("of kind 23 in the target"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// An interface's page whose method summary holds between a fifth and a quarter of the
/// declared `main` (its description, summary and details): the `main` is the content, not
/// the summary the interface shares with every class that implements it.
#[test]
fn a_method_summary_of_under_a_quarter_of_the_main_brings_the_main() {
    let methods = [
        ("addLayoutComponent", "If the layout manager uses a per-component string, adds the component comp to the layout, associating it with the string given."),
        ("layoutContainer", "Lays out the specified container, placing each of its components where the manager says."),
        ("minimumLayoutSize", "Calculates the minimum size dimensions for the specified container, given the components it contains."),
    ];
    let summary: String = methods
        .iter()
        .map(|(m, d)| format!("<div class=col-first><code>void</code></div><div class=col-second><code><a href=#{m}>{m}</a></code></div><div class=col-last><div class=block>{d}</div></div>"))
        .collect();
    // Each method's details: short notes (none long enough to score), much text in all.
    let notes = each(16, |k| format!("<dt>Note {k}:</dt><dd>see the manual</dd>"));
    let details: String = methods
        .iter()
        .map(|(m, _)| format!("<section class=detail><h3>{m}</h3><div class=block>Lays it out.</div><dl class=notes>{notes}</dl></section>"))
        .collect();
    let html = format!(
        "<html><body><nav><a href=/>Overview</a><a href=/p>Package</a></nav><main role=main>\
         <div class=header><h1>Interface LayoutManager</h1></div>\
         <section class=class-description><div class=type-signature>public interface LayoutManager</div>\
         <div class=block>Defines the interface for classes that know how to lay out Containers.</div></section>\
         <section class=summary><div class=summary-table>{summary}</div></section>\
         <section class=details>{details}</section></main></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("know how to lay out"), "{text}");
    assert!(text.contains("see the manual"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A class-use page of an API site: its title sits in a header marked as such, its
/// captions name the class in a link, and its table is what scores. The title and the
/// captions are the page's own (what tells it from the same page of a sibling class);
/// a line of links with commas between them is not.
#[test]
fn a_declared_mains_title_and_its_linked_captions_are_kept() {
    let rows = each(3, |k| {
        format!("<div class=col-first><code>abstract void</code></div><div class=col-second><code><a href=#m{k}>check{k}</a>()</code></div><div class=col-last><div class=block>Checks that the certificate is currently valid, given the date {k}.</div></div>")
    });
    let html = format!(
        "<html><body><header class=flex-header><nav><a href=/>Overview</a></nav></header>\
         <main role=main><div class=header><h1 title=x class=title>Uses of Class<br>java.security.cert.CertificateExpiredException</h1></div>\
         <div class=caption><span>Methods in <a href=p.html>java.security.cert</a> that throw <a href=c.html>CertificateExpiredException</a></span></div>\
         <div class=summary-table>{rows}</div>\
         <div class=inherited><a href=a>addNotify</a>, <a href=b>addAncestorListener</a>, <a href=c>computeVisibleRect</a>, <a href=d>createToolTip</a></div></main>\
         <footer><p>Copyright the site, all rights reserved.</p></footer></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("CertificateExpiredException\n"), "{text}");
    assert!(
        text.contains("Methods in java.security.cert that throw"),
        "{text}"
    );
    assert!(text.contains("currently valid"), "{text}");
    assert!(!text.contains("addNotify"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
    // A site's header outside any `main` is its banner still.
    let banner = format!(
        "<html><body><div class=header><h1>The Site</h1></div><div class=post><p>{P1}</p><p>{P2}</p></div></body></html>"
    );
    let text = main_text(&banner);
    assert!(!text.contains("The Site"), "{text}");
    assert!(text.contains(&P1[..40]), "{text}");
}

/// A summary table's linked names (the annotations a class-use page lists, each beside
/// its description) and a section's heading that names its subject in links are the
/// page's text; a run of links is not, nor a heading that is a link alone, nor the last
/// name of a list of links before the next list's heading.
#[test]
fn linked_names_beside_their_text_and_linked_headings_are_kept() {
    let rows: String = ["BeanProperty", "Serial", "Documented"]
        .iter()
        .map(|n| format!("<div class=col-first><code>@interface</code></div><div class=col-second><code><a href=#{n} class=type-name-link>{n}</a></code></div><div class=col-last><div class=block>An annotation that tells the compiler something about the element it marks.</div></div>"))
        .collect();
    let html = format!(
        "<html><body><nav><a href=/>Overview</a></nav><main role=main>\
         <div class=header><h1>Uses of Annotation Interface<br>java.lang.annotation.Target</h1></div>\
         <section class=detail><h2>Uses of <a href=t.html>Target</a> in <a href=p.html>java.beans</a></h2>\
         <div class=caption><span>Classes in <a href=p.html>java.beans</a> with annotations of type <a href=t.html>Target</a></span></div>\
         <div class=summary-table>{rows}</div></section>\
         <section class=inherited><h3><a href=r.html>Related</a></h3>\
         <div class=list><a href=a>addNotify</a>, <a href=b>addAncestorListener</a>, <a href=c>computeVisibleRect</a></div>\
         <div class=list><code><a href=d>itemStateChanged</a></code></div>\
         <h3>Methods declared in class AccessibleAbstractButton</h3></section></main></body></html>"
    );
    let text = main_text(&html);
    for n in ["BeanProperty", "Serial", "Documented"] {
        assert!(text.contains(&format!("\n{n}\n")), "{n}: {text}");
    }
    assert!(text.contains("Uses of Target in java.beans"), "{text}");
    assert!(text.contains("tells the compiler"), "{text}");
    assert!(!text.contains("Related"), "{text}");
    assert!(!text.contains("addNotify"), "{text}");
    assert!(!text.contains("itemStateChanged"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A link is kept as the name of the text beside it only when that text is kept: a name
/// beside a share box, which the content leaves out as frame, goes with it.
#[test]
fn a_name_beside_text_left_out_as_frame_goes_with_it() {
    let para = "The roses in the north bed flowered late this year, after a cold spring and a wet start to the summer that kept the soil heavy.";
    let html = format!(
        "<html><body><nav><a href=/>Home</a> <a href=/a>About</a></nav><article>\
         <h1>Garden notes</h1><p>{para}</p><p>{para}</p>\
         <div class=row><div class=name><a href=/tell>Tell a friend</a></div>\
         <div class=share-box>Share this page with your friends on the networks you use every day.</div></div>\
         <p>{para}</p></article></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("cold spring"), "{text}");
    assert!(!text.contains("Share this page"), "{text}");
    assert!(!text.contains("Tell a friend"), "{text}");
}

/// A class-use page of an API site, as its generator writes it: the table of subclasses
/// is the choice, and the section's heading and the caption before it name the class the
/// page is about. Pages of sibling classes list the same subclasses with the same
/// descriptions; their headings and captions differ.
#[test]
fn the_heading_and_caption_before_the_choice_come_with_it() {
    let row = |parity: &str, k: u32| {
        format!(
            "<div class=\"col-first {parity}-row-color\"><code>class&nbsp;</code></div>\n\
             <div class=\"col-second {parity}-row-color\"><code><a href=\"../Walker{k}.html\" class=\"type-name-link\">Walker{k}</a>&lt;R,<wbr>P&gt;</code></div>\n\
             <div class=\"col-last {parity}-row-color\">\n<div class=\"block\">A walker of syntax trees sorted by their <a href=\"../../tree/Kind.html\">kind</a> with default behavior suited to the <a href=\"../../Level.html#LEVEL_{k}\"><code>LEVEL_{k}</code></a> language level.</div>\n</div>\n"
        )
    };
    let page = |name: &str, more: &str| {
        format!(
            "<html><body><header><nav><a href=/>Overview</a><a href=/p>Package</a></nav></header>\n\
             <main role=\"main\">\n<div class=\"header\">\n<h1 title=\"Uses of Class x.{name}\" class=\"title\">Uses of Class<br>x.{name}</h1>\n</div>\n\
             <div class=\"caption\"><span>Packages that use <a href=\"../{name}.html\">{name}</a></span></div>\n\
             <div class=\"summary-table two-column-summary\">\n<div class=\"table-header col-first\">Package</div>\n<div class=\"table-header col-last\">Description</div>\n\
             <div class=\"col-first even-row-color\"><a href=\"#x.walk\">x.walk</a></div>\n<div class=\"col-last even-row-color\">\n\
             <div class=\"block\">Helpers for walking <a href=\"../../tree/package-summary.html\">syntax trees</a> and <a href=\"../../sym/package-summary.html\">symbols</a>.</div>\n</div>\n</div>\n\
             <section class=\"class-uses\">\n<ul class=\"block-list\">\n<li>\n<section class=\"detail\" id=\"x.walk\">\n\
             <h2>Uses of <a href=\"../{name}.html\">{name}</a> in <a href=\"../package-summary.html\">x.walk</a></h2>\n\
             <div class=\"caption\"><span>Subclasses of <a href=\"../{name}.html\">{name}</a> in <a href=\"../package-summary.html\">x.walk</a></span></div>\n\
             <div class=\"summary-table three-column-summary\">\n<div class=\"table-header col-first\">Modifier and Type</div>\n\
             <div class=\"table-header col-second\">Class</div>\n<div class=\"table-header col-last\">Description</div>\n{}{}{}{more}</div>\n\
             </section>\n</li>\n</ul>\n</section>\n</main></body></html>",
            row("even", 14),
            row("odd", 8),
            row("even", 9)
        )
    };
    let text = main_text(&page("Walker7", ""));
    assert!(text.contains("Subclasses of Walker7 in x.walk"), "{text}");
    assert!(text.contains("suited to the LEVEL_8"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
    // Without a heading before it, a caption is not an introduction the rule knows (the
    // table, with more rows, holding over three quarters of the declared `main`, so that
    // the `main` is not taken whole).
    let more: String = (20..26)
        .map(|k| row(if k % 2 == 0 { "even" } else { "odd" }, k))
        .collect();
    let text = main_text(
        &page("Walker7", &more)
            .replace("<h2>", "<div class=uses>")
            .replace("</h2>", "</div>"),
    );
    assert!(!text.contains("Subclasses of"), "{text}");
    assert!(text.contains("suited to the LEVEL_8"), "{text}");
}

/// A class-use page as an API site's generator writes it, whose section holds two
/// tables (the classes that implement an interface; the constructors taking it, the
/// larger): both are the content, and the caption between them, naming the interface,
/// comes with the second, as the heading and caption before the first come with the first
/// (all three together are over the 200 bytes of one introduction). Pages of two
/// interfaces taken by the same constructors differ only there.
#[test]
fn the_caption_between_two_chosen_tables_comes_with_the_second() {
    let link = |to: &str| {
        format!(
            "<a href=\"../{to}.html\" title=\"interface in javax.management.openbean\">{to}</a>"
        )
    };
    let signature = |extra: &str| {
        format!(
            "<code><a href=\"../Support.html#init\" class=\"member-name-link\">OpenBeanInfoSupport</a><wbr>(\
             {s}&nbsp;className, {s}&nbsp;description, {}[]&nbsp;openAttributes, {}[]&nbsp;openConstructors, \
             {}[]&nbsp;openOperations{extra})</code>",
            link("OpenBeanAttributeInfo"),
            link("OpenBeanConstructorInfo"),
            link("OpenBeanOperationInfo"),
            s = "<a href=\"../../String.html\" title=\"class in x.lang\">String</a>"
        )
    };
    let header = |cols: &[&str]| -> String {
        cols.iter()
            .map(|c| format!("<div class=\"table-header col-first\">{c}</div>\n"))
            .collect()
    };
    let page = |name: &str, between: &str| {
        format!(
            "<html><body><header><nav><a href=/>Overview</a> <a href=/p>Package</a></nav></header>\n\
             <main role=\"main\">\n<div class=\"header\"><h1 class=\"title\">Uses of Interface<br>javax.management.openbean.{name}</h1></div>\n\
             <div class=\"caption\"><span>Packages that use {l}</span></div>\n\
             <div class=\"summary-table two-column-summary\">{h2}<div class=\"col-first\"><a href=\"#javax.management.openbean\">javax.management.openbean</a></div>\n\
             <div class=\"col-last\"><div class=\"block\">Provides the open data types and open bean descriptor classes.</div></div></div>\n\
             <section class=\"class-uses\"><ul class=\"block-list\"><li><section class=\"detail\" id=\"javax.management.openbean\">\n\
             <h2>Uses of {l} in <a href=\"../package-summary.html\">javax.management.openbean</a></h2>\n\
             <div class=\"caption\"><span>Classes in <a href=\"../package-summary.html\">javax.management.openbean</a> that implement {l}</span></div>\n\
             <div class=\"summary-table three-column-summary\">{h3}<div class=\"col-first\"><code>class&nbsp;</code></div>\n\
             <div class=\"col-second\"><code><a href=\"../{name}Support.html\">{name}Support</a></code></div>\n\
             <div class=\"col-last\"><div class=\"block\">Describes one part of an open bean.</div></div></div>\n\
             {between}<div class=\"caption\"><span>Constructors in <a href=\"../package-summary.html\">javax.management.openbean</a> with parameters of type {l}</span></div>\n\
             <div class=\"summary-table three-column-summary\">{h3c}<div class=\"col-first\"><code>&nbsp;</code></div>\n\
             <div class=\"col-second\">{}</div>\n<div class=\"col-last\"><div class=\"block\">Constructs an <code>OpenBeanInfoSupport</code> instance, which describes a class of open beans with the specified <code>className</code>, <code>description</code>, <code>openAttributes</code>, <code>openConstructors</code> and <code>openOperations</code>.</div></div>\n\
             <div class=\"col-first\"><code>&nbsp;</code></div>\n<div class=\"col-second\">{}</div>\n<div class=\"col-last\"><div class=\"block\">Constructs an <code>OpenBeanInfoSupport</code> instance, which describes a class of open beans with the specified <code>className</code>, <code>description</code>, <code>openAttributes</code>, <code>openConstructors</code>, <code>openOperations</code>, and <code>descriptor</code>.</div></div></div>\n\
             </section></li></ul></section></main>\n<footer><p>Copyright the site, all rights reserved.</p></footer></body></html>",
            signature(""),
            signature(&format!(", {}&nbsp;descriptor", link("Descriptor"))),
            l = link(name),
            h2 = header(&["Package", "Description"]),
            h3 = header(&["Modifier and Type", "Class", "Description"]),
            h3c = header(&["Modifier", "Constructor", "Description"]),
        )
    };
    let text = main_text(&page("OpenBeanAttributeInfo", ""));
    assert!(
        text.contains("Classes in javax.management.openbean that implement OpenBeanAttributeInfo"),
        "{text}"
    );
    assert!(
        text.contains("Constructors in javax.management.openbean with parameters of type OpenBeanAttributeInfo"),
        "{text}"
    );
    assert!(text.contains("Describes one part"), "{text}");
    assert!(text.contains("and descriptor."), "{text}");
    assert!(!text.contains("Overview"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
    // A long line between the two tables (over 200 bytes, mostly links, so it is not a
    // part of its own) is not an introduction.
    let long = each(12, |k| {
        format!("<a href=\"../T{k}.html\">javax.management.openbean.SomeOtherType{k}</a> ")
    });
    let text = main_text(&page(
        "OpenBeanAttributeInfo",
        &format!("<div class=\"caption\"><span>See also {long}</span></div>\n"),
    ));
    assert!(!text.contains("SomeOtherType"), "{text}");
    assert!(
        !text.contains("Constructors in javax.management.openbean"),
        "{text}"
    );
    assert!(text.contains("and descriptor."), "{text}");
}

/// A DocBook reference page (a constant of a units library, as its generator chunks one
/// per page): the name and purpose, the synopsis and the description are three `div`s of
/// a `refentry`, none of which scores much alone. The page is the `refentry`, not its
/// purpose line, which every constant of the family repeats.
#[test]
fn a_docbook_reference_page_is_its_refentry() {
    let page = |name: &str, value: &str, what: &str| {
        format!(
            "<html><body><table width=\"100%\"><tr><td><img alt=\"Units\" src=u.png></td>\
             <td><a href=/index.html>Home</a></td><td><a href=/libs.html>Libraries</a></td><td><a href=/faq.html>FAQ</a></td></tr></table><hr>\
             <div class=\"spirit-nav\"><a href=prev.html><img alt=Prev src=p.png></a><a href=next.html><img alt=Next src=n.png></a></div>\
             <div class=\"refentry\"><a name=\"x\"></a><div class=\"titlepage\"></div>\
             <div class=\"refnamediv\"><h2><span class=\"refentrytitle\">Function PHYSICAL_CONSTANT</span></h2>\
             <p>units::si::constants::codata::PHYSICAL_CONSTANT — CODATA recommended values of the fundamental physical constants: NIST SP 961.</p></div>\
             <h2 class=\"refsynopsisdiv-title\">Synopsis</h2>\
             <div class=\"refsynopsisdiv\"><pre class=\"synopsis\"><span class=\"comment\">// In header: &lt;<a class=\"link\" href=\"ref.html#h\">units/systems/si/codata/alpha_constants.hpp</a>&gt;\n\n</span> \
             <span class=\"identifier\">PHYSICAL_CONSTANT</span>(<span class=\"identifier\">{name}</span>, quantity&lt; mass &gt;, {value} * kilograms, 3.3e-34 * kilograms);</pre></div>\
             <div class=\"refsect1\"><a name=\"d\"></a><h2>Description</h2><p>{what}</p></div></div>\
             <table width=\"100%\"><tr><td></td><td><div class=\"copyright-footer\">Copyright 2003-2008 the authors<p>Distributed under the Software License, Version 1.0. (See accompanying file LICENSE or copy at <a href=\"http://example.org/LICENSE\">http://example.org/LICENSE</a>)</p></div></td></tr></table>\
             </body></html>"
        )
    };
    let text = main_text(&page("m_alpha", "6.64465620e-27", "alpha particle mass"));
    assert!(text.contains("CODATA recommended values"), "{text}");
    assert!(text.contains("m_alpha"), "{text}");
    assert!(text.contains("alpha particle mass"), "{text}");
    assert!(!text.contains("Libraries"), "{text}");
    assert!(!text.contains("Distributed under"), "{text}");
}

/// A class template's reference page as DocBook writes it: its name and purpose, a
/// synopsis, a description, then sections of member functions, the last holding most of
/// the page's text. The reference entry is the content, as a declared `main` is: the
/// member functions alone are what every container of the library repeats, and the
/// name, synopsis and description are what tell the page from its siblings'.
#[test]
fn a_section_of_a_docbook_reference_entry_brings_the_entry() {
    let item = |name: &str, what: &str| {
        format!(
            "<li class=\"listitem\"><pre class=\"literallayout\"><span class=\"identifier\">iterator</span> <span class=\"identifier\">{name}</span><span class=\"special\">()</span> <span class=\"keyword\">noexcept</span>;</pre>\
             <p><span class=\"bold\"><strong>Effects</strong></span>: {what} Throws: if value_traits::node_traits::node constructor throws (this does not happen with predefined hooks), or the copy constructor of the key_compare object throws, basic guarantee.</p>\
             <p><span class=\"bold\"><strong>Complexity</strong></span>: Constant.</p><p><span class=\"bold\"><strong>Throws</strong></span>: Nothing.</p></li>"
        )
    };
    let list = |items: String| {
        format!(
            "<div class=\"orderedlist\"><ol class=\"orderedlist\" type=\"1\">{items}</ol></div>"
        )
    };
    let synopsis = each(40, |k| {
        format!("  <span class=\"keyword\">typedef</span> <a class=\"link\" href=\"t.html#t{k}\">implementation_defined</a>::<span class=\"identifier\">type{k}</span> <span class=\"identifier\">name{k}</span>;\n")
    });
    let ctors = each(6, |k| {
        item(
            &format!("avltree{k}"),
            &format!(
                "Constructs a container from the range number {k}, with the given comparison."
            ),
        )
    });
    let members = each(30, |k| {
        item(
            &format!("member{k}"),
            &format!("Returns an iterator pointing to element {k} of the container."),
        )
    });
    let html = format!(
        "<html><body><table width=\"100%\"><tr><td><a href=/index.html>Home</a></td><td><a href=/libs.html>Libraries</a></td></tr></table><hr>\
         <div class=\"refentry\"><a name=\"x\"></a><div class=\"titlepage\"></div>\
         <div class=\"refnamediv\"><h2><span class=\"refentrytitle\">Class template avltree</span></h2><p>boost::intrusive::avltree</p></div>\
         <h2 class=\"refsynopsisdiv-title\">Synopsis</h2>\
         <div class=\"refsynopsisdiv\"><pre class=\"synopsis\"><span class=\"keyword\">class</span> <a class=\"link\" href=\"avltree.html\">avltree</a> {{\n{synopsis}}};</pre></div>\
         <div class=\"refsect1\"><a name=\"d\"></a><h2>Description</h2>\
         <p>The class template avltree is an intrusive AVL tree container, that is used to construct intrusive <a class=\"link\" href=\"avl_set.html\">avl_set</a> and <a class=\"link\" href=\"avl_multiset.html\">avl_multiset</a> containers.</p>\
         <p>The template parameter <code class=\"computeroutput\">T</code> is the type to be managed by the container.</p>\
         <div class=\"refsect2\"><a name=\"c\"></a><h3><code class=\"computeroutput\">avltree</code> public construct/copy/destruct</h3>{}</div>\
         <div class=\"refsect2\"><a name=\"m\"></a><h3><code class=\"computeroutput\">avltree</code> public member functions</h3>{}</div>\
         </div></div>\
         <table width=\"100%\"><tr><td><div class=\"copyright-footer\">Copyright 2005 the authors</div></td></tr></table></body></html>",
        list(ctors),
        list(members)
    );
    let text = main_text(&html);
    assert!(text.contains("Class template avltree"), "{text}");
    assert!(text.contains("intrusive AVL tree container"), "{text}");
    assert!(text.contains("from the range number 5"), "{text}");
    assert!(text.contains("element 29 of the container"), "{text}");
    assert!(!text.contains("Libraries"), "{text}");
}

/// A database manual's page of one view (as a DocBook generator writes it): a paragraph
/// saying what the view is, then its columns in a table inside two wrappers (`div
/// class="table"` with the table's title, `div class="table-contents"`). The table is the
/// choice, and the paragraph beside its wrapper comes with it: two views of the same
/// columns differ only there.
#[test]
fn a_tables_wrappers_stand_for_it_so_its_introduction_comes_with_it() {
    let row = |name: &str, what: &str| {
        format!(
            "<tr><td class=\"catalog_table_entry\"><p class=\"column_definition\"><code class=\"structfield\">{name}</code> <code class=\"type\">sql_identifier</code></p><p>{what}</p></td></tr>"
        )
    };
    let rows: String = [
        ("grantor", "Name of the role that granted the privilege"),
        (
            "grantee",
            "Name of the role that the privilege was granted to",
        ),
        (
            "specific_catalog",
            "Name of the database containing the function (always the current database)",
        ),
        (
            "specific_schema",
            "Name of the schema containing the function",
        ),
        (
            "routine_name",
            "Name of the function (might be duplicated in case of overloading)",
        ),
        (
            "is_grantable",
            "YES if the privilege is grantable, NO if not",
        ),
    ]
    .iter()
    .map(|(n, w)| row(n, w))
    .collect();
    let html = format!(
        "<html><body><div class=\"navheader\"><table width=\"100%\"><tr><th colspan=\"5\">36.36. role_routine_grants</th></tr>\
         <tr><td><a href=p.html>Prev</a></td><td><a href=u.html>Up</a></td><th>Chapter 36. The Information Schema</th><td><a href=/>Home</a></td><td><a href=n.html>Next</a></td></tr></table><hr></div>\
         <div class=\"sect1\" id=\"X\"><div class=\"titlepage\"><div><div><h2 class=\"title\">36.36. <code class=\"literal\">role_routine_grants</code></h2></div></div></div>\
         <p>The view <code class=\"literal\">role_routine_grants</code> identifies all privileges granted on functions where the grantor or grantee is a currently enabled role. Further information can be found under <code class=\"literal\">routine_privileges</code>.</p>\
         <div class=\"table\" id=\"t\"><p class=\"title\"><strong>Table 36.34. <code class=\"structname\">role_routine_grants</code> Columns</strong></p>\
         <div class=\"table-contents\"><table class=\"table\" border=\"1\"><thead><tr><th class=\"catalog_table_entry\"><p class=\"column_definition\">Column Type</p><p>Description</p></th></tr></thead>\
         <tbody>{rows}</tbody></table></div></div></div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("identifies all privileges granted"), "{text}");
    assert!(text.contains("Name of the schema containing"), "{text}");
    assert!(!text.contains("Prev"), "{text}");
}

#[test]
fn a_declared_main_of_links_alone_is_an_index_where_nothing_scores() {
    // A module's page that lists its items without a description: a declared `main` of 40
    // linked names, beside a sidebar of 30 links to the crate's other modules. No block
    // scores (every line is a link), yet the page's content is the list, not its full text.
    let items = each(40, |i| {
        format!(r#"<dt><a class="type" href="type.N{i}.html">N{i}</a></dt>"#)
    });
    let sidebar = each(30, |i| {
        format!(r#"<li><a href="../m{i}/index.html">module{i}</a></li>"#)
    });
    let page = format!(
        r#"<html><body><nav class="sidebar"><ul>{sidebar}</ul></nav><main><section id="main-content" class="content"><h1>Module consts</h1><h2>Type Aliases</h2><dl class="item-table">{items}</dl></section></main></body></html>"#
    );
    let mut text = String::new();
    let found = extract(&page, &mut text);
    assert!(found.main, "{text}");
    assert!(text.contains("N0\n") && text.contains("N39"), "{text}");
    assert!(!text.contains("module7"), "{text}");
    // A `main` that is not mostly links, where nothing scores, is no index: the full text.
    let page = format!(
        r#"<html><body><nav class="sidebar"><ul>{sidebar}</ul></nav><main><h1>Log in</h1><p>Name</p><p>Password</p></main></body></html>"#
    );
    let mut text = String::new();
    assert!(!extract(&page, &mut text).main, "{text}");
}

/// An API page's definition lists as javadoc writes them: terms ("All Implemented
/// Interfaces:", "Specified by:", "See Also:") whose values are links. The values are what
/// tell one generated page from another (`Spliterator<Double>` and `<Long>`), so each comes
/// with its term; a long line of links is no term's value, and a value whose term is left
/// out goes with it. The deprecation note (javadoc's `div class="deprecation-comment"`) is
/// the API's text, not readers' comments.
#[test]
fn a_terms_value_of_links_comes_with_the_term() {
    let para = "If this spliterator can be partitioned, returns a Spliterator covering elements, that will, upon return from this method, not be covered by this Spliterator.";
    let many = each(60, |i| format!(r#"<a href="c{i}.html">Class{i}</a>, "#));
    let page = format!(
        r#"<html><body><header><nav><a href="/">Overview</a> <a href="/p">Package</a></nav></header><main role="main">
        <h1 class="title">Class AbstractDoubleSpliterator</h1>
        <dl class="notes"><dt>All Implemented Interfaces:</dt><dd><code><a href="S.html">Spliterator</a>&lt;Double&gt;</code>, <code><a href="S.OfDouble.html">Spliterator.OfDouble</a></code></dd>
        <dt>Direct Known Subclasses:</dt><dd>{many}</dd></dl>
        <div class="deprecation-block"><span class="deprecated-label">Deprecated.</span><div class="deprecation-comment">This spliterator is no longer a platform type and is replaced with the primitive iterator of the same name.</div></div>
        <section class="detail"><h3>trySplit</h3><div class="block">{para}</div><div class="block">{para}</div>
        <dl class="notes"><dt>Specified by:</dt><dd><code><a href="S.html#trySplit()">trySplit</a></code>&nbsp;in interface&nbsp;<code><a href="S.html">Spliterator</a>&lt;Double&gt;</code></dd>
        <dt>Returns:</dt><dd>a Spliterator covering some portion of the elements, or null if this spliterator cannot be split</dd></dl></section>
        <aside><dl><dt>Site map:</dt><dd><a href="/a">Alpha</a>, <a href="/b">Beta</a></dd></dl></aside>
        </main></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("covering elements"), "{text}");
    assert!(
        text.contains("All Implemented Interfaces:\nSpliterator<Double>, Spliterator.OfDouble\n"),
        "{text}"
    );
    assert!(
        text.contains("Specified by:\ntrySplit in interface Spliterator<Double>\n"),
        "{text}"
    );
    assert!(
        text.contains("replaced with the primitive iterator"),
        "{text}"
    );
    assert!(!text.contains("Class7,"), "{text}");
    assert!(!text.contains("Alpha"), "{text}");
}

/// A javadoc class page whose own text is short beside what it inherits: a description,
/// long lists of inherited methods (links between commas) and a constructor summary of one
/// line in javadoc's `div class="summary-table two-column-summary"`. A count of columns
/// names the table's layout, not the content, so that one line does not outscore the
/// description (and leave a sliver that reads the page whole, menus and all).
#[test]
fn a_count_of_columns_names_a_layout_not_the_content() {
    let inherited = each(12, |k| {
        let names = each(60, |i| {
            format!(r#"<a href="C{k}.html#m{i}()">methodNumber{k}x{i}</a>, "#)
        });
        format!(
            r#"<div class="inherited-list"><h3>Methods declared in class&nbsp;<a href="C{k}.html">C{k}</a></h3><code>{names}</code></div>"#
        )
    });
    let page = format!(
        r#"<html><body><header><nav><a href="/">Overview</a> <a href="/p">Package</a> <a href="/t">Tree</a></nav></header><main role="main">
        <div class="header"><h1 class="title">Class Renderer.Resource</h1></div>
        <section class="class-description"><div class="type-signature">public static class <span>Renderer.Resource</span> extends <a href="R.html">Renderer</a></div>
        <div class="block">A subclass of <a href="R.html"><code>Renderer</code></a> that implements <a href="U.html"><code>Resource</code></a>. The renderer does not implement it directly so that applications can safely override the property with subclasses.</div></section>
        <section class="summary"><section class="constructor-summary"><h2>Constructor Summary</h2><div class="caption"><span>Constructors</span></div>
        <div class="summary-table two-column-summary"><div class="table-header col-first">Constructor</div><div class="table-header col-last">Description</div>
        <div class="col-constructor-name even-row-color"><code><a href="x">Resource</a>()</code></div><div class="col-last even-row-color"><div class="block">Constructs a <code>Resource</code> renderer.</div></div></div></section>
        <section class="method-summary"><h2>Method Summary</h2>{inherited}</section></section>
        </main><footer><p>Report a bug or suggest an enhancement. Copyright and the documentation redistribution policy.</p></footer></body></html>"#
    );
    let mut text = String::new();
    let found = extract(&page, &mut text);
    assert!(found.main, "{text}");
    assert!(text.contains("safely override the property"), "{text}");
    assert!(!text.contains("Report a bug"), "{text}");
}
