//! The calls through which a callee's fact or shape reached a frame.
//!
//! A summary's facts and shapes are taken over at every call, each with the
//! call put in front of the path it already had. Copying the path there
//! made a chain of N functions hold N² call sites per summary (and a
//! function calling its callee twice, repeated down a chain, far more): so
//! the path is a persistent list whose tails are shared, and taking one over
//! costs one node.
//!
//! Each node also knows the span of the offsets on its path, so that a
//! rewrite that only changes offsets in one place (the database anchoring
//! one function's own offsets) can keep a tail that lies elsewhere without
//! walking it: a fact stated N calls down a chain has a path N long, and
//! walking it in every summary up the chain was N² in all.

use std::collections::HashMap;
use std::sync::Arc;

use tensorfit_base::TextRange;

/// Outermost call first; empty for a frame's own facts and shapes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallPath(Option<Arc<Node>>);

#[derive(Debug, PartialEq)]
struct Node {
    site: CallSite,
    inner: CallPath,
    len: usize,
    /// The smallest start and the largest end of the sites on the path
    /// from this node in.
    span: TextRange,
}

impl CallPath {
    /// `site`, then the calls of `inner` (the path inside the callee).
    pub fn through(site: CallSite, inner: &CallPath) -> CallPath {
        let len = inner.len() + 1;
        let span = match &inner.0 {
            Some(node) => TextRange {
                start: site.range.start.min(node.span.start),
                end: site.range.end.max(node.span.end),
            },
            None => site.range,
        };
        CallPath(Some(Arc::new(Node {
            site,
            inner: inner.clone(),
            len,
            span,
        })))
    }

    /// The path of `sites`, outermost first.
    pub fn of(sites: &[CallSite]) -> CallPath {
        sites.iter().rev().fold(CallPath::default(), |inner, site| {
            CallPath::through(site.clone(), &inner)
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |node| node.len)
    }

    /// The outermost call.
    pub fn first(&self) -> Option<&CallSite> {
        self.0.as_ref().map(|node| &node.site)
    }

    /// The path with each call site rewritten by `rewrite`. A node met
    /// before in `done` (the paths of one walk share their tails) is
    /// rewritten once, and the results share it as the originals did.
    /// With `changes_within`, the caller promises that `rewrite` leaves a
    /// site whose range lies wholly outside it as it is: a tail of such
    /// sites is kept, not walked.
    pub fn rewritten(
        &self,
        rewrite: &mut dyn FnMut(&CallSite) -> CallSite,
        changes_within: Option<TextRange>,
        done: &mut RewrittenPaths,
    ) -> CallPath {
        let untouched = |node: &Node| {
            changes_within
                .is_some_and(|within| node.span.end < within.start || node.span.start > within.end)
        };
        // Innermost last; rebuilt from there without recursion (a path is
        // as long as the call chain).
        let mut nodes = Vec::new();
        let mut next = self.0.as_ref();
        while let Some(node) = next {
            if done.0.contains_key(&address(node)) || untouched(node) {
                break;
            }
            nodes.push(node);
            next = node.inner.0.as_ref();
        }
        let mut inner = match next {
            Some(node) => match done.0.get(&address(node)) {
                Some((_, rewritten)) => rewritten.clone(),
                None => CallPath(Some(node.clone())),
            },
            None => CallPath::default(),
        };
        for node in nodes.into_iter().rev() {
            inner = CallPath::through(rewrite(&node.site), &inner);
            let original = CallPath(Some(node.clone()));
            done.0.insert(address(node), (original, inner.clone()));
        }
        inner
    }

    /// The calls, outermost first.
    pub fn iter(&self) -> impl Iterator<Item = &CallSite> {
        let mut next = self.0.as_deref();
        std::iter::from_fn(move || {
            let node = next?;
            next = node.inner.0.as_deref();
            Some(&node.site)
        })
    }
}

/// The nodes one walk has rewritten, by address, each with its original
/// (kept alive so that no new node takes its address during the walk).
#[derive(Default)]
pub struct RewrittenPaths(HashMap<usize, (CallPath, CallPath)>);

fn address(node: &Arc<Node>) -> usize {
    Arc::as_ptr(node) as usize
}

/// A call through which a callee's fact reached the checked entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// The call, in the caller.
    pub range: TextRange,
    pub callee: String,
    /// The call as written, e.g. `model(input)`.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(n: usize) -> CallSite {
        CallSite {
            range: TextRange::new(n, n + 1),
            callee: format!("f{n}"),
            text: format!("f{n}(x)"),
        }
    }

    #[test]
    fn a_path_taken_over_keeps_its_calls_after_the_new_one() {
        let inner = CallPath::of(&[site(2), site(3)]);
        let outer = CallPath::through(site(1), &inner);
        let callees: Vec<&str> = outer.iter().map(|s| s.callee.as_str()).collect();
        assert_eq!(callees, ["f1", "f2", "f3"]);
        assert_eq!(outer.len(), 3);
        assert_eq!(outer.first(), Some(&site(1)));
        assert_eq!(outer, CallPath::of(&[site(1), site(2), site(3)]));
        assert_ne!(outer, inner);
        assert!(CallPath::default().is_empty());
        assert_eq!(CallPath::default().iter().count(), 0);
    }

    #[test]
    fn rewritten_paths_stay_shared() {
        let shared = CallPath::of(&[site(5), site(6)]);
        let a = CallPath::through(site(1), &shared);
        let b = CallPath::through(site(2), &shared);
        let mut done = RewrittenPaths::default();
        let mut moved = |s: &CallSite| CallSite {
            range: TextRange::new(s.range.start as usize + 100, s.range.end as usize + 100),
            ..s.clone()
        };
        let (a2, b2) = (
            a.rewritten(&mut moved, None, &mut done),
            b.rewritten(&mut moved, None, &mut done),
        );
        let starts = |p: &CallPath| p.iter().map(|s| s.range.start).collect::<Vec<_>>();
        assert_eq!(starts(&a2), [101, 105, 106]);
        assert_eq!(starts(&b2), [102, 105, 106]);
        let tail = |p: &CallPath| p.0.as_ref().unwrap().inner.0.clone().unwrap();
        assert!(
            Arc::ptr_eq(&tail(&a2), &tail(&b2)),
            "the tail is rewritten once"
        );
    }

    #[test]
    fn a_tail_outside_the_changed_span_is_kept_unwalked() {
        // Sites 1 and 2 lie in the changed span, 50 and 60 outside it.
        let tail = CallPath::of(&[site(50), site(60)]);
        let path = CallPath::through(site(1), &CallPath::through(site(2), &tail));
        let mut seen = Vec::new();
        let mut moved = |s: &CallSite| {
            seen.push(s.range.start);
            CallSite {
                range: TextRange::new(s.range.start as usize + 100, s.range.end as usize + 100),
                ..s.clone()
            }
        };
        let within = Some(TextRange::new(0, 10));
        let rewritten = path.rewritten(&mut moved, within, &mut RewrittenPaths::default());
        assert_eq!(seen, [2, 1], "only the sites in the span are rewritten");
        let starts: Vec<u32> = rewritten.iter().map(|s| s.range.start).collect();
        assert_eq!(starts, [101, 102, 50, 60]);
        let kept = rewritten
            .0
            .as_ref()
            .unwrap()
            .inner
            .0
            .as_ref()
            .unwrap()
            .inner
            .clone();
        assert!(Arc::ptr_eq(
            kept.0.as_ref().unwrap(),
            tail.0.as_ref().unwrap()
        ));
        // A site whose range ends at the span's start is inside it.
        let touching = CallPath::of(&[site(9)]);
        let mut count = 0;
        touching.rewritten(
            &mut |s| {
                count += 1;
                s.clone()
            },
            Some(TextRange::new(10, 20)),
            &mut RewrittenPaths::default(),
        );
        assert_eq!(count, 1);
    }
}
