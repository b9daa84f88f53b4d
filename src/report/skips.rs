//! What a store's build skipped, as text for people: one line per skip reason and per notable
//! count (`neardup info`, and the summary `fingerprint` prints).

use crate::fingerprint::store::Manifest;

/// One line per skip reason and per notable count.
pub fn skip_summary(m: &Manifest) -> String {
    let s = &m.stats;
    let mut out = String::new();
    let skipped: u64 = s.skipped.values().sum();
    out.push_str(&format!("skipped records: {skipped}"));
    for (k, v) in &s.skipped {
        out.push_str(&format!("\n  {k:<18} {v}"));
    }
    out.push_str(&format!(
        "\nshort documents (kept, excluded from joins): {}\ndocuments without features: {}\nduplicate ids: {}\nnon-document records: {}\nContent-Length repaired: {}",
        s.short, s.no_features, s.duplicate_ids, s.other_records, s.length_repaired
    ));
    if s.skipped_bytes > 0 {
        out.push_str(&format!(
            "\ninput bytes passed over after damage: {}",
            s.skipped_bytes
        ));
    }
    if s.empty_shards > 0 {
        out.push_str(&format!("\nempty shards: {}", s.empty_shards));
    }
    if !s.failed_shards.is_empty() {
        out.push_str(&format!("\nshards not read: {}", s.failed_shards.len()));
        for f in &s.failed_shards {
            out.push_str(&format!("\n  {f}"));
        }
    }
    out
}
