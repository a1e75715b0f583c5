//! Every text range an analysis result holds, reachable in one walk.
//!
//! The incremental database rewrites the ranges of summaries into
//! position-free anchors (so that typing which only moves text does not
//! change a summary) and puts positions back before results are assembled.
//! Both need to reach every range; a range this walk misses would keep an
//! anchor where a position belongs, so each type lists all of its ranges
//! here, next to one another.

use tensorfit_base::{Diagnostic, TextRange};

use super::analysis::{EntryReport, Summary};
use super::call_path::{CallPath, RewrittenPaths};
use super::conditions::DecidedCondition;
use super::exec::{Deferred, ShapeRecord};
use super::fact::{CallSite, Fact};
use super::migration::{Migration, Requirement};
use super::shown::ShownShape;
use super::FunctionOutcome;

/// One walk's rewrite of ranges: the function, and the call paths already
/// rewritten (facts and shapes that came through the same calls share
/// their paths' nodes; each is rewritten once and stays shared).
pub struct RangeMap<'m> {
    map: &'m mut dyn FnMut(TextRange) -> TextRange,
    /// Offsets outside this span are left as they are by `map` (which
    /// also notes nothing about them): call paths lying there are kept
    /// without being walked.
    changes_within: Option<TextRange>,
    paths: RewrittenPaths,
}

impl<'m> RangeMap<'m> {
    pub fn new(map: &'m mut dyn FnMut(TextRange) -> TextRange) -> RangeMap<'m> {
        RangeMap {
            map,
            changes_within: None,
            paths: RewrittenPaths::default(),
        }
    }

    /// A walk whose `map` changes (and looks at) only the offsets in
    /// `span`, both ends included.
    pub fn within(span: TextRange, map: &'m mut dyn FnMut(TextRange) -> TextRange) -> RangeMap<'m> {
        RangeMap {
            changes_within: Some(span),
            ..RangeMap::new(map)
        }
    }

    fn apply(&mut self, range: TextRange) -> TextRange {
        (self.map)(range)
    }
}

/// Something holding text ranges, each of which `map` may replace.
pub trait MapRanges {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>);
}

impl MapRanges for TextRange {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        *self = map.apply(*self);
    }
}

impl MapRanges for CallPath {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let RangeMap {
            map,
            changes_within,
            paths,
        } = map;
        *self = self.rewritten(
            &mut |site| CallSite {
                range: map(site.range),
                ..site.clone()
            },
            *changes_within,
            paths,
        );
    }
}

impl<T: MapRanges> MapRanges for Vec<T> {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        for item in self {
            item.map_ranges(map);
        }
    }
}

impl<T: MapRanges> MapRanges for Option<T> {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        if let Some(item) = self {
            item.map_ranges(map);
        }
    }
}

impl MapRanges for Fact {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let Fact {
            range,
            via,
            sides,
            guard: _,
            formula: _,
            kind: _,
            function: _,
            explain: _,
            part: _,
            construction,
            constructed_at,
        } = self;
        range.map_ranges(map);
        via.map_ranges(map);
        if let Some(site) = constructed_at {
            site.range.map_ranges(map);
        }
        if let Some(construction) = construction {
            construction.range.map_ranges(map);
        }
        for (range, _) in sides {
            range.map_ranges(map);
        }
    }
}

impl MapRanges for ShapeRecord {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let ShapeRecord {
            range,
            via,
            name: _,
            value: _,
            guard: _,
        } = self;
        range.map_ranges(map);
        via.map_ranges(map);
    }
}

impl MapRanges for Deferred {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let Deferred {
            range,
            op: _,
            args: _,
            result: _,
            guard: _,
        } = self;
        range.map_ranges(map);
    }
}

impl MapRanges for Summary {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let Summary {
            facts,
            records,
            deferred,
            function: _,
            params: _,
            result: _,
            first_var: _,
            end_var: _,
            var_names: _,
            opaque_vars: _,
            in_place: _,
            numbers_decide: _,
            ranks_decide: _,
        } = self;
        facts.map_ranges(map);
        records.map_ranges(map);
        deferred.map_ranges(map);
    }
}

impl MapRanges for Diagnostic {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        self.range.map_ranges(map);
        for related in &mut self.related {
            related.range.map_ranges(map);
        }
        if let Some(suggestion) = &mut self.suggestion {
            suggestion.range.map_ranges(map);
        }
    }
}

impl MapRanges for ShownShape {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        self.range.map_ranges(map);
        self.calls.map_ranges(map);
    }
}

impl MapRanges for DecidedCondition {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        self.range.map_ranges(map);
        self.statement.map_ranges(map);
        self.dead_branch.map_ranges(map);
        self.live_branch.map_ranges(map);
    }
}

impl MapRanges for Requirement {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        self.at.map_ranges(map);
    }
}

impl MapRanges for Migration {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let Migration {
            range,
            type_range,
            reason,
            function: _,
            parameter: _,
            annotation: _,
            example: _,
            forced_rank: _,
            call_shapes: _,
            writing,
        } = self;
        range.map_ranges(map);
        type_range.map_ranges(map);
        reason.map_ranges(map);
        for (range, _) in writing.iter_mut().flat_map(|w| w.also.iter_mut()) {
            range.map_ranges(map);
        }
    }
}

impl MapRanges for EntryReport {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let EntryReport {
            diagnostics,
            shapes,
            conditions,
            function: _,
            preconditions: _,
        } = self;
        diagnostics.map_ranges(map);
        shapes.map_ranges(map);
        conditions.map_ranges(map);
    }
}

/// Everything but the summary, which has its own walk (and which results
/// are assembled without).
impl MapRanges for FunctionOutcome {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        let FunctionOutcome {
            report,
            migrations,
            hole_paths,
            set_aside,
            refuted_claims,
            failed_calls,
            holes,
            summary: _,
            limits: _,
        } = self;
        report.map_ranges(map);
        migrations.map_ranges(map);
        hole_paths.map_ranges(map);
        for (_, range) in set_aside {
            range.map_ranges(map);
        }
        for ((_, range), _) in refuted_claims {
            range.map_ranges(map);
        }
        for range in failed_calls {
            range.map_ranges(map);
        }
        *holes = std::mem::take(holes)
            .into_iter()
            .map(|(range, var)| (map.apply(range), var))
            .collect();
    }
}
