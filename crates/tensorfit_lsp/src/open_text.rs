//! An open document as hover and inlay hints read it: its current text and
//! the last finished analysis, carried over the edits made since.
//!
//! Edits are applied here as they arrive, apart from the database (whose
//! setter waits for the analyses an edit cancels). An analysis finishes
//! for the version it was started on, which may be behind the text by
//! then: the edits made after each version are logged, so that it can be
//! carried over them all when it is kept.

use std::collections::VecDeque;

use tensorfit_base::{ByteEdit, EditMap};
use tensorfit_db::{Rope, TextChange};
use tensorfit_ide::{CarriedAnalysis, FileAnalysis};

/// Too many separate edited regions since an analysis: its answers are
/// dropped rather than mapped through them all.
const MAX_CARRIED_REGIONS: usize = 256;
/// Edits kept for analyses still running.
const MAX_LOGGED_EDITS: usize = 4096;

pub(crate) struct OpenText {
    /// The version last applied.
    version: i32,
    /// Its text (the same as the host's, edited apart).
    rope: Rope,
    /// The last finished analysis and its version.
    carried: Option<(i32, CarriedAnalysis)>,
    /// The edits made after the carried analysis's version (all of them
    /// without one), each with the version it made.
    log: VecDeque<(i32, ByteEdit)>,
    /// The oldest version the log has every later edit of.
    log_covers_from: i32,
    /// Inlay hints were answered from an analysis older than the text:
    /// the client is asked for them again when a newer one is kept.
    hints_outdated: bool,
}

impl OpenText {
    pub(crate) fn new(version: i32, text: &str) -> OpenText {
        OpenText {
            version,
            rope: Rope::from_str(text),
            carried: None,
            log: VecDeque::new(),
            log_covers_from: version,
            hints_outdated: false,
        }
    }

    /// The text's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.rope.len_bytes()
    }

    /// The whole text.
    pub(crate) fn text(&self) -> String {
        self.rope.to_string()
    }

    /// Applies the changes that make `version`.
    pub(crate) fn apply(&mut self, version: i32, changes: &[TextChange]) {
        for change in changes {
            let edit = tensorfit_db::edit_rope(&mut self.rope, change);
            self.log.push_back((version, edit));
            if let Some((_, carried)) = &mut self.carried {
                carried.edits.record(edit);
            }
        }
        while self.log.len() > MAX_LOGGED_EDITS {
            if let Some((made, _)) = self.log.pop_front() {
                self.log_covers_from = made;
            }
        }
        if self
            .carried
            .as_ref()
            .is_some_and(|(_, c)| c.edits.regions() > MAX_CARRIED_REGIONS)
        {
            self.carried = None;
        }
        self.version = version;
    }

    /// Keeps the analysis of `version` unless the one kept is of a later
    /// version or it cannot be carried to the current text (one of the
    /// same version finished later, e.g. under new settings, replaces it).
    /// Whether the client should be asked for its inlay hints again.
    pub(crate) fn keep(&mut self, version: i32, analysis: FileAnalysis) -> bool {
        let newer = self
            .carried
            .as_ref()
            .is_none_or(|(kept, _)| *kept <= version);
        if !newer || version < self.log_covers_from {
            return false;
        }
        let mut edits = EditMap::default();
        for (_, edit) in self.log.iter().filter(|(made, _)| *made > version) {
            edits.record(*edit);
        }
        if edits.regions() > MAX_CARRIED_REGIONS {
            return false;
        }
        self.log.retain(|(made, _)| *made > version);
        self.log_covers_from = version;
        self.carried = Some((version, CarriedAnalysis { analysis, edits }));
        std::mem::take(&mut self.hints_outdated)
    }

    /// The analysis to answer from, with the current text; `None` when
    /// there is none yet.
    ///
    /// Also after the current version's diagnostics are published, until
    /// its whole analysis is kept: diagnostics come from the checks alone
    /// (`Settings::diagnostics_first`), so reading the current analysis
    /// then would mean solving the edited function's shapes while the
    /// hover waits (60 ms in U-Net's `forward`). The answer is marked in
    /// the edited function, and inlay hints are asked for again when the
    /// newer analysis is kept.
    pub(crate) fn carried(&self) -> Option<(CarriedAnalysis, Rope)> {
        let (_, carried) = self.carried.as_ref()?;
        Some((carried.clone(), self.rope.clone()))
    }

    /// The version of the analysis answered from.
    pub(crate) fn analysed_version(&self) -> Option<i32> {
        self.carried.as_ref().map(|(version, _)| *version)
    }

    /// Inlay hints were just answered: if not from the current version,
    /// the client is asked again when a newer analysis is kept.
    pub(crate) fn hints_answered(&mut self) {
        self.hints_outdated |= self.analysed_version() != Some(self.version);
    }

    /// Analyses made under other settings are not answered from.
    pub(crate) fn forget_analysis(&mut self) {
        self.carried = None;
        self.log.clear();
        self.log_covers_from = self.version;
    }
}
