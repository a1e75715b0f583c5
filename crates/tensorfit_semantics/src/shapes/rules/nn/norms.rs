//! Normalisation over groups and instances: `group_norm` (and the
//! `GroupNorm` layer), `InstanceNorm1d/2d`.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::super::{
    require, require_equal, require_rank, require_rank_at_least, RuleContext, Shape, Value,
};
use super::{spatial_dims, spatial_ranks};

/// `group_norm(input, num_groups)`: the channels (`input.shape[1]`) split
/// into `num_groups` equal groups; `channels` (the layer's
/// `num_channels`, or the weight's size) must be the input's.
pub(in super::super) fn group_norm(
    frame: &mut dyn RuleContext,
    op: &str,
    input: &Shape,
    text: &str,
    groups: Option<&Term>,
    channels: Option<(&Term, &str)>,
    range: TextRange,
) -> Value {
    let input = frame.refine_shape(input);
    require_rank_at_least(
        frame,
        &input,
        2,
        range,
        format!("`{op}` needs an input of rank at least 2 (batch, channels), but `{text}` has rank {{}}"),
    );
    let Some(actual) = input.dim(1) else {
        return Value::Tensor(input);
    };
    if let Some((expected, name)) = channels {
        require_equal(
            frame,
            &actual,
            expected,
            &format!("`{op}` gets the wrong number of channels"),
            format!("{text}.shape[1]"),
            name.to_owned(),
            range,
        );
    }
    if let Some(groups) = groups {
        require(
            frame,
            Formula::and([
                Formula::ge(groups, &Term::int(1)),
                Formula::eq(&Term::rem(&actual, groups), &Term::int(0)),
            ]),
            range,
            format!("`{op}`: the {{}} channels of `{text}` do not split into {{}} groups"),
            vec![actual.clone(), groups.clone()],
        );
    }
    Value::Tensor(input)
}

/// `InstanceNorm1d/2d(num_features, affine)`: an input of rank 2 or 3
/// (1-D), 3 or 4 (2-D); with `affine` the channels (`shape[-spatial-1]`)
/// must be `num_features` (without, PyTorch only warns).
pub(in super::super) fn instance_norm(
    frame: &mut dyn RuleContext,
    op: &str,
    input: &Shape,
    text: &str,
    features: Option<&Term>,
    affine: bool,
    range: TextRange,
) -> Value {
    let spatial = spatial_dims(op);
    let input = frame.refine_shape(input);
    if !require_rank(frame, &input, &spatial_ranks(spatial), op, text, range) {
        return Value::Unknown;
    }
    let channel = -(spatial as i64) - 1;
    if let (true, Some(features), Some(actual)) = (affine, features, input.dim(channel)) {
        require_equal(
            frame,
            &actual,
            features,
            &format!("`{op}` gets the wrong number of channels"),
            format!("{text}.shape[{channel}]"),
            "num_features".to_owned(),
            range,
        );
    }
    Value::Tensor(input)
}
