//! From payload bytes to normalised text and features.
//!
//! [`charset`] decodes bytes to UTF-8, [`html`] strips markup into text (through
//! [`normalize`], which also normalises plain text), [`tokenize`] splits text into Lucene-style
//! terms ([`stop`] words, [`porter`] stems) and [`features`] hashes term n-grams into the
//! 128-bit feature hashes that SimHash sums. [`extract`] is the payload-to-text path every
//! stage shares. [`paragraphs`] cuts the text into the paragraph chunks of content reuse.
//! [`main_content`] finds a page's main region, leaving out the [`labels`], date lines and
//! bylines between its parts.

pub mod blocks;
pub mod canonical;
pub mod charset;
pub mod entities;
pub mod extract;
pub mod features;
pub mod html;
pub mod labels;
pub mod main_content;
pub mod normalize;
pub mod paragraphs;
pub mod porter;
pub mod stop;
pub mod structure;
pub mod tokenize;

pub use tokenize::TokenOptions;
