//! Which copy of a group is kept, before the representative rule decides: whole stores
//! ranked first (`--prefer`: a curated source over a crawl), then a number from the input
//! (`--keep-by FIELD[:max|min]`: a quality score, a date). The policy is a key per document,
//! lower kept first; documents tie on it when no policy is set, and the representative rule
//! (and corpus order) breaks every tie. It is read where the rule is: the star removal, the
//! linear removal against kept texts, and the clusters' representatives.

use crate::fingerprint::store::StoreSet;

/// Which end of `--keep-by`'s numbers is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The largest number first (a score, the newest date): the default.
    Max,
    /// The smallest first (the oldest date).
    Min,
}

/// A keep policy over a store set.
#[derive(Clone, Copy)]
pub struct KeepPolicy<'a> {
    stores: Option<&'a StoreSet>,
    /// Rank of each store of the set (by index), lower first; empty: no preference.
    store_rank: &'a [u32],
    /// Keep by the stores' numbers, this end first.
    by: Option<Order>,
}

/// The largest key: a document with no number for `--keep-by`, after every one with a number.
const MISSING: u64 = u64::MAX;

/// `v` as a key that sorts as the number does (IEEE 754 bits, the sign flipped).
fn ordered(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 0 {
        b | (1 << 63)
    } else {
        !b
    }
}

impl<'a> KeepPolicy<'a> {
    /// No policy: every document the same key.
    pub const NONE: KeepPolicy<'static> = KeepPolicy {
        stores: None,
        store_rank: &[],
        by: None,
    };

    /// A policy over `stores`: `store_rank` ranks each of its stores (empty: none), `by`
    /// keeps by the stores' numbers ([`StoreSet::value`]).
    pub fn new(stores: &'a StoreSet, store_rank: &'a [u32], by: Option<Order>) -> KeepPolicy<'a> {
        KeepPolicy {
            stores: Some(stores),
            store_rank,
            by,
        }
    }

    /// Whether every document has the same key.
    pub fn is_none(&self) -> bool {
        self.store_rank.is_empty() && self.by.is_none()
    }

    /// Document `d`'s key, lower kept first: its store's rank, then its number (a document
    /// without one last).
    pub fn key(&self, d: u32) -> u128 {
        let Some(stores) = self.stores else {
            return 0;
        };
        let rank = if self.store_rank.is_empty() {
            0
        } else {
            self.store_rank[stores.position(d).0]
        };
        let value = match self.by {
            None => 0,
            Some(order) => {
                // -0.0 and 0.0 are the same number: they tie.
                let v = stores.value(d) + 0.0;
                if v.is_nan() {
                    MISSING
                } else {
                    match order {
                        Order::Min => ordered(v).min(MISSING - 1),
                        Order::Max => (!ordered(v)).min(MISSING - 1),
                    }
                }
            }
        };
        (u128::from(rank) << 64) | u128::from(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_as_the_numbers_do() {
        let vs = [
            f64::NEG_INFINITY,
            -3.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            1e300,
            f64::INFINITY,
        ];
        for w in vs.windows(2) {
            assert!(ordered(w[0]) <= ordered(w[1]), "{} {}", w[0], w[1]);
            assert!(!ordered(w[0]) >= !ordered(w[1]));
        }
        assert!(ordered(f64::INFINITY) < MISSING && !ordered(f64::NEG_INFINITY) < MISSING);
        // As the key reads them: -0.0 ties with 0.0.
        assert_eq!(ordered(-0.0 + 0.0), ordered(0.0));
    }
}
