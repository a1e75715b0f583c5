//! "did you mean" suggestions for misspelt names.

/// ` (did you mean `x`?)` for the closest candidate within a small edit
/// distance, or an empty string.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    did_you_mean_hint(closest(name, candidates))
}

/// ` (did you mean `x`?)` for a candidate, or an empty string.
pub(crate) fn did_you_mean_hint(candidate: Option<&str>) -> String {
    match candidate {
        Some(candidate) => format!(" (did you mean `{candidate}`?)"),
        None => String::new(),
    }
}

/// The candidate closest to `name` within a small edit distance.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = match name.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    };
    let length = name.chars().count();
    let best = candidates
        .into_iter()
        .filter(|candidate| *candidate != name)
        // Cheap first: the edit distance is at least the length difference.
        .filter(|candidate| candidate.len().abs_diff(length) <= limit * 4)
        .filter(|candidate| candidate.chars().count().abs_diff(length) <= limit)
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min();
    best.map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("matmull", ["matmul", "mm"]),
            " (did you mean `matmul`?)"
        );
        assert_eq!(
            did_you_mean("relu", ["gelu", "zeros"]),
            " (did you mean `gelu`?)"
        );
        assert_eq!(did_you_mean("xy", ["x"]), "");
        assert_eq!(did_you_mean("foobar", ["matmul"]), "");
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
