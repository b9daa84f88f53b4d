//! The verified pairs TSV: every candidate pair with its text similarities and the verdict
//! (docs/FORMATS.md).

use std::io::Write;

use super::lists::tsv_field;
use crate::fingerprint::store::StoreSet;
use crate::join::Pair;
use crate::verify::{Measure, Overlap, VerifySpec};

/// Writes `pairs` (sorted by document index) to `w`; returns how many passed.
pub fn write(
    w: &mut dyn Write,
    stores: &StoreSet,
    pairs: &[(Pair, Overlap)],
    spec: &VerifySpec,
) -> std::io::Result<u64> {
    writeln!(
        w,
        "id_a\tid_b\thamming64\thamming128\ts3\tjaccard\tcontainment\tnear_duplicate"
    )?;
    let mut passed = 0;
    for (p, o) in pairs {
        let (a, b) = (stores.id(p.a), stores.id(p.b));
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let ok = spec.passes(o);
        passed += u64::from(ok);
        writeln!(
            w,
            "{}\t{}\t{}\t{}\t{:.6}\t{:.6}\t{:.6}\t{}",
            tsv_field(a),
            tsv_field(b),
            p.d64,
            p.d128,
            o.score(Measure::S3),
            o.score(Measure::Jaccard),
            o.score(Measure::Containment),
            u8::from(ok)
        )?;
    }
    w.flush()?;
    Ok(passed)
}
