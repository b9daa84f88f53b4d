//! The command line's raw arguments as the library's options ([`crate::jobs::options`]): a
//! field for a flag, nothing decided here. The flags' defaults are the library's; a test
//! parses an empty command line and compares (`config.rs`).

use super::args::{
    self, Backend, CorpusOpts, DedupArgs, Features, FingerprintOpts, JoinOpts, Method,
    SimilarityOpts, TextFormat,
};
use crate::jobs::options::{
    self as o, CorpusOptions, DedupOptions, FingerprintOptions, JoinOptions, SimilarityOptions,
};
use crate::join::plan;
use crate::join::BackendChoice;

impl From<&FingerprintOpts> for FingerprintOptions {
    fn from(a: &FingerprintOpts) -> Self {
        FingerprintOptions {
            follow: a.follow,
            features: match a.features {
                Features::Native => o::Features::Native,
                Features::SimhashPy => o::Features::SimhashPy,
            },
            minhash: a.minhash,
            chunks: a.chunks,
            shingles: a.shingles,
            minhash_bands: a.minhash_bands,
            minhash_rows: a.minhash_rows,
            ngrams: a.ngrams.clone(),
            no_lowercase: a.no_lowercase,
            no_stopwords: a.no_stopwords,
            no_stem: a.no_stem,
            no_possessive: a.no_possessive,
            no_unspaced_chars: a.no_unspaced_chars,
            hash_seed: a.hash_seed,
            any_status: a.any_status,
            any_content_type: a.any_content_type,
            min_html_len: a.min_html_len,
            min_terms: a.min_terms,
            english: a.english,
            id_field: a.id_field.clone(),
            text_field: a.text_field.clone(),
            url_field: a.url_field.clone(),
            keep_field: a.keep_field.clone(),
            text: a.text,
            text_format: match a.text_format {
                TextFormat::Auto => o::TextFormat::Auto,
                TextFormat::Html => o::TextFormat::Html,
                TextFormat::Text => o::TextFormat::Text,
            },
            split_mib: a.split_mib,
            max_record_size: a.max_record_size,
        }
    }
}

impl From<&JoinOpts> for JoinOptions {
    fn from(a: &JoinOpts) -> Self {
        JoinOptions {
            method: match a.method {
                Method::Exact => plan::Method::Exact,
                Method::Random => plan::Method::Random,
            },
            blocks: a.blocks,
            bits: a.bits,
            iterations: a.iterations,
            seed: a.seed,
            backend: match a.backend {
                Backend::Auto => BackendChoice::Auto,
                Backend::Gpu => BackendChoice::Gpu,
                Backend::Cpu => BackendChoice::Cpu,
            },
            adapter: a.adapter.clone(),
        }
    }
}

impl From<&SimilarityOpts> for SimilarityOptions {
    fn from(a: &SimilarityOpts) -> Self {
        SimilarityOptions {
            measure: a.measure.clone(),
            min: a.min,
            shingle: a.shingle,
            verify_memory: a.verify_memory,
        }
    }
}

impl From<&CorpusOpts> for CorpusOptions {
    fn from(a: &CorpusOpts) -> Self {
        CorpusOptions {
            shard_size: a.shard_size,
            drop_labeled_chunks: a.drop_labeled_chunks.clone(),
        }
    }
}

impl From<&DedupArgs> for DedupOptions {
    fn from(a: &DedupArgs) -> Self {
        DedupOptions {
            inputs: a.inputs.clone(),
            output: a.output.clone(),
            force: a.force,
            tau: a.tau,
            tau_max: a.tau_max,
            tau128: a.tau128,
            representative: a.representative,
            remove_by: a.remove_by,
            against: a.against.clone(),
            keep_by: a.keep_by.clone(),
            prefer: a.prefer.clone(),
            canonical: a.canonical,
            candidates: a.candidates.map(|c| match c {
                args::Candidates::Simhash => o::Candidates::Simhash,
                args::Candidates::Minhash => o::Candidates::Minhash,
            }),
            no_verify: a.no_verify,
            skip_joined: a.skip_joined,
            site_blocks: a.site_blocks,
            keep_shingles: a.keep_shingles,
            all_pairs: a.all_pairs,
            max_leaders: a.max_leaders,
            partitions: a.partitions,
            shard_dir: a.shard_dir.clone(),
            similarity: (&a.similarity).into(),
            join: (&a.join).into(),
            write_corpus: a.write_corpus,
            substrings: a.substrings,
            corpus: (&a.corpus).into(),
            tables: a.tables.clone(),
            fingerprint: (&a.fingerprint).into(),
        }
    }
}
