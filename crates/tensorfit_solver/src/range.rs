//! The values a term can take under a set of facts: one forced value, or a
//! range (bounded or not) with a few examples. Used to solve shape holes.
//!
//! Bounds are found by galloping away from a known value and then
//! bisecting, with satisfiability queries each tightened by the model the
//! previous one returned: about twice the logarithm of the range's width in
//! queries. A bound beyond ±2^40 counts as none. A query the solver cannot decide, or a deadline
//! passed, makes the whole answer `Unknown`: a range is reported only when
//! every step of it was proved.

use std::time::Instant;

use crate::term::{Formula, Term};
use crate::{model, Fact, Limits};

/// Beyond this magnitude a bound is taken to be absent.
const FAR: i64 = 1 << 40;

/// Examples listed for a hole that is not forced.
const EXAMPLES: usize = 3;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueRange {
    /// Exactly one value fits.
    Forced(i64),
    /// Several values fit: every value in `min..=max` that was tried, and
    /// the bounds (`None`: unbounded).
    Range {
        min: Option<i64>,
        max: Option<i64>,
        examples: Vec<i64>,
    },
    /// No value fits: the facts contradict each other.
    Empty,
    /// The solver could not decide in time.
    Unknown,
}

/// One satisfiability query (with the term's value in a model); the
/// callers' `Err(())` means "could not decide".
enum Probe {
    Sat(i64),
    Unsat,
}

struct Search<'f> {
    facts: &'f [Fact],
    term: &'f Term,
    limits: Limits,
    deadline: Instant,
}

impl Search<'_> {
    fn probe(&self, extra: Formula) -> Result<Probe, ()> {
        if Instant::now() > self.deadline {
            return Err(());
        }
        let mut facts = self.facts.to_vec();
        facts.push(Fact {
            id: u32::MAX,
            formula: extra,
        });
        match model(&facts, std::slice::from_ref(self.term), self.limits) {
            Some(values) => Ok(Probe::Sat(values[0])),
            None => match crate::check_unminimized(&facts, self.limits) {
                crate::Outcome::Unsat(_) => Ok(Probe::Unsat),
                _ => Err(()),
            },
        }
    }

    /// The smallest fitting value, knowing that `known` fits; `None` when
    /// there is none above -2^40.
    fn min(&self, known: i64) -> Result<Option<i64>, ()> {
        if let Probe::Sat(_) = self.probe(Formula::lt(self.term, &Term::int(-FAR)))? {
            return Ok(None);
        }
        // Gallop down from the known value, then bisect: as many queries as
        // the logarithm of the range's actual width.
        // Invariant: `hi` fits; nothing fits at or below `lo`.
        let mut hi = known;
        let mut step = 1i64;
        let mut lo = loop {
            let below = hi.saturating_sub(step).max(-FAR - 1);
            match self.probe(Formula::le(self.term, &Term::int(below)))? {
                Probe::Sat(value) => {
                    hi = value.min(below);
                    step = step.saturating_mul(2);
                }
                Probe::Unsat => break below,
            }
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            match self.probe(Formula::le(self.term, &Term::int(mid)))? {
                Probe::Sat(value) => hi = value.min(mid),
                Probe::Unsat => lo = mid,
            }
        }
        Ok(Some(hi))
    }

    /// The largest fitting value, symmetric to [`Search::min`].
    fn max(&self, known: i64) -> Result<Option<i64>, ()> {
        if let Probe::Sat(_) = self.probe(Formula::gt(self.term, &Term::int(FAR)))? {
            return Ok(None);
        }
        // Invariant: `lo` fits; nothing fits at or above `hi`.
        let mut lo = known;
        let mut step = 1i64;
        let mut hi = loop {
            let above = lo.saturating_add(step).min(FAR + 1);
            match self.probe(Formula::ge(self.term, &Term::int(above)))? {
                Probe::Sat(value) => {
                    lo = value.max(above);
                    step = step.saturating_mul(2);
                }
                Probe::Unsat => break above,
            }
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            match self.probe(Formula::ge(self.term, &Term::int(mid)))? {
                Probe::Sat(value) => lo = value.max(mid),
                Probe::Unsat => hi = mid,
            }
        }
        Ok(Some(lo))
    }

    fn run(&self) -> Result<ValueRange, ()> {
        let known = match self.probe(Formula::truth(true))? {
            Probe::Sat(value) => value,
            Probe::Unsat => return Ok(ValueRange::Empty),
        };
        if let Probe::Unsat = self.probe(Formula::ne(self.term, &Term::int(known)))? {
            return Ok(ValueRange::Forced(known));
        }
        let min = self.min(known)?;
        let max = self.max(known)?;
        // Examples from the bottom of the range (or around the known value
        // when it is unbounded below); not every value in a range need fit.
        let start = min.unwrap_or(known);
        let mut examples = Vec::new();
        let mut candidate = start;
        while examples.len() < EXAMPLES && max.is_none_or(|m| candidate <= m) {
            if candidate - start > 16 * EXAMPLES as i64 {
                break;
            }
            if let Probe::Sat(_) = self.probe(Formula::eq(self.term, &Term::int(candidate)))? {
                examples.push(candidate);
            }
            candidate += 1;
        }
        Ok(ValueRange::Range { min, max, examples })
    }
}

/// The values `term` can take where all `facts` hold.
pub fn value_range(facts: &[Fact], term: &Term, limits: Limits, deadline: Instant) -> ValueRange {
    let search = Search {
        facts,
        term,
        limits,
        deadline,
    };
    search.run().unwrap_or(ValueRange::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn far_deadline() -> Instant {
        Instant::now() + std::time::Duration::from_secs(60)
    }

    fn fact(formula: Formula) -> Fact {
        Fact { id: 0, formula }
    }

    fn range_of(facts: Vec<Formula>, term: &Term) -> ValueRange {
        let facts: Vec<Fact> = facts.into_iter().map(fact).collect();
        value_range(&facts, term, Limits::default(), far_deadline())
    }

    #[test]
    fn unique_value() {
        let h = Term::var(1);
        let facts = vec![Formula::eq(
            &Term::mul(&h, &Term::int(64)),
            &Term::int(20480),
        )];
        assert_eq!(range_of(facts, &h), ValueRange::Forced(320));
    }

    #[test]
    fn bounded_range() {
        let h = Term::var(1);
        let facts = vec![
            Formula::ge(&h, &Term::int(5)),
            Formula::le(&Term::mul(&h, &Term::int(2)), &Term::int(40)),
        ];
        assert_eq!(
            range_of(facts, &h),
            ValueRange::Range {
                min: Some(5),
                max: Some(20),
                examples: vec![5, 6, 7],
            }
        );
    }

    #[test]
    fn unbounded_above() {
        let h = Term::var(1);
        let facts = vec![Formula::ge(&h, &Term::int(1))];
        assert_eq!(
            range_of(facts, &h),
            ValueRange::Range {
                min: Some(1),
                max: None,
                examples: vec![1, 2, 3],
            }
        );
    }

    #[test]
    fn gaps_in_a_range_are_skipped_in_examples() {
        // h even, 3 <= h <= 9: the range is 4..=8, examples 4, 6, 8.
        let h = Term::var(1);
        let facts = vec![
            Formula::eq(&Term::rem(&h, &Term::int(2)), &Term::int(0)),
            Formula::ge(&h, &Term::int(3)),
            Formula::le(&h, &Term::int(9)),
        ];
        assert_eq!(
            range_of(facts, &h),
            ValueRange::Range {
                min: Some(4),
                max: Some(8),
                examples: vec![4, 6, 8],
            }
        );
    }

    #[test]
    fn contradictory_facts_leave_no_value() {
        let h = Term::var(1);
        let facts = vec![
            Formula::ge(&h, &Term::int(5)),
            Formula::le(&h, &Term::int(2)),
        ];
        assert_eq!(range_of(facts, &h), ValueRange::Empty);
    }

    #[test]
    fn a_passed_deadline_gives_unknown() {
        let h = Term::var(1);
        let facts = vec![fact(Formula::ge(&h, &Term::int(1)))];
        let past = Instant::now() - std::time::Duration::from_millis(1);
        assert_eq!(
            value_range(&facts, &h, Limits::default(), past),
            ValueRange::Unknown
        );
    }
}
