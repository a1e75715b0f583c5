//! `LSTM` and `GRU` layers: the sequence run through each layer in each
//! direction, with PyTorch's gate equations and weight layout.

use std::rc::Rc;

use ndarray::{ArrayD, IxDyn};

use crate::error::{Failure, Outcome};
use crate::ops::OpContext;
use crate::value::{dims_text, Tensor, Value};

/// The weights of one layer in one direction, as PyTorch lays them out:
/// `w_ih` is `[G·H, input]`, `w_hh` `[G·H, H_out]` (G gates: 4 for an
/// LSTM, 3 for a GRU), `w_hr` an LSTM's projection `[H_out, H]`.
#[derive(Debug, Clone)]
pub struct Cell {
    pub w_ih: Vec<Vec<f32>>,
    pub w_hh: Vec<Vec<f32>>,
    pub b_ih: Vec<f32>,
    pub b_hh: Vec<f32>,
    pub w_hr: Option<Vec<Vec<f32>>>,
}

/// Per time step (or per state), per sample, the features.
type Rows = Vec<Vec<Vec<f32>>>;

#[derive(Debug)]
pub struct Recurrent {
    pub lstm: bool,
    pub input_size: usize,
    pub hidden: usize,
    /// `proj_size` (an LSTM's), else `hidden`.
    pub out_size: usize,
    pub layers: usize,
    pub bidirectional: bool,
    pub batch_first: bool,
    /// Per layer, per direction (forward first); empty until
    /// [`Recurrent::with_random_weights`].
    pub cells: Vec<Cell>,
}

impl Recurrent {
    pub fn name(&self) -> &'static str {
        if self.lstm {
            "LSTM"
        } else {
            "GRU"
        }
    }

    fn directions(&self) -> usize {
        if self.bidirectional {
            2
        } else {
            1
        }
    }

    /// The layer with weights uniform in ±1/√hidden, as PyTorch
    /// initialises them.
    pub fn with_random_weights(mut self, ctx: &mut OpContext) -> Recurrent {
        let bound = 1.0 / (self.hidden as f32).sqrt();
        let gates = if self.lstm { 4 } else { 3 };
        let mut matrix = |rows: usize, cols: usize| -> Vec<Vec<f32>> {
            (0..rows)
                .map(|_| {
                    (0..cols)
                        .map(|_| (ctx.rng.uniform() * 2.0 - 1.0) * bound)
                        .collect()
                })
                .collect()
        };
        let mut cells = Vec::new();
        for layer in 0..self.layers {
            let input = if layer == 0 {
                self.input_size
            } else {
                self.out_size * self.directions()
            };
            for _ in 0..self.directions() {
                let w_ih = matrix(gates * self.hidden, input);
                let w_hh = matrix(gates * self.hidden, self.out_size);
                let b_ih = matrix(1, gates * self.hidden).remove(0);
                let b_hh = matrix(1, gates * self.hidden).remove(0);
                let w_hr = (self.lstm && self.out_size != self.hidden)
                    .then(|| matrix(self.out_size, self.hidden));
                cells.push(Cell {
                    w_ih,
                    w_hh,
                    b_ih,
                    b_hh,
                    w_hr,
                });
            }
        }
        self.cells = cells;
        self
    }

    /// `(output, (h_n, c_n))` for an LSTM, `(output, h_n)` for a GRU.
    pub fn apply(&self, ctx: &OpContext, input: &Tensor, hx: Option<&Value>) -> Outcome<Value> {
        let name = self.name();
        let batched = match input.ndim() {
            3 => true,
            2 => false,
            r => {
                return Err(Failure::shape(format!(
                    "`{name}`: expected input to be 2-D or 3-D but received {r}-D tensor"
                )))
            }
        };
        if input.shape()[input.ndim() - 1] != self.input_size {
            return Err(Failure::shape(format!(
                "`{name}`: input.size(-1) must be equal to input_size. Expected {}, got {}",
                self.input_size,
                input.shape()[input.ndim() - 1]
            )));
        }
        // As [length][batch][features].
        let (length, batch) = match (batched, self.batch_first) {
            (false, _) => (input.shape()[0], 1),
            (true, false) => (input.shape()[0], input.shape()[1]),
            (true, true) => (input.shape()[1], input.shape()[0]),
        };
        let at = |t: usize, n: usize, f: usize| -> f32 {
            match (batched, self.batch_first) {
                (false, _) => input[[t, f].as_slice()],
                (true, false) => input[[t, n, f].as_slice()],
                (true, true) => input[[n, t, f].as_slice()],
            }
        };
        let mut sequence: Rows = (0..length)
            .map(|t| {
                (0..batch)
                    .map(|n| (0..self.input_size).map(|f| at(t, n, f)).collect())
                    .collect()
            })
            .collect();
        let states = self.layers * self.directions();
        let (h0, c0) = self.initial_states(hx, states, batch, batched)?;
        let mut h_n = Vec::new();
        let mut c_n = Vec::new();
        for layer in 0..self.layers {
            let mut outputs: Rows = vec![vec![Vec::new(); batch]; length];
            for direction in 0..self.directions() {
                let index = layer * self.directions() + direction;
                let cell = &self.cells[index];
                let mut h = h0[index].clone();
                let mut c = c0[index].clone();
                let steps: Vec<usize> = if direction == 0 {
                    (0..length).collect()
                } else {
                    (0..length).rev().collect()
                };
                for t in steps {
                    for n in 0..batch {
                        let (next_h, next_c) = self.step(cell, &sequence[t][n], &h[n], &c[n]);
                        h[n] = next_h;
                        c[n] = next_c;
                        outputs[t][n].extend_from_slice(&h[n]);
                    }
                }
                h_n.push(h);
                c_n.push(c);
            }
            sequence = outputs;
        }
        let features = self.out_size * self.directions();
        let out_shape: Vec<usize> = match (batched, self.batch_first) {
            (false, _) => vec![length, features],
            (true, false) => vec![length, batch, features],
            (true, true) => vec![batch, length, features],
        };
        ctx.check_size(&out_shape)?;
        let output =
            ArrayD::from_shape_fn(IxDyn(&out_shape), |i| match (batched, self.batch_first) {
                (false, _) => sequence[i[0]][0][i[1]],
                (true, false) => sequence[i[0]][i[1]][i[2]],
                (true, true) => sequence[i[1]][i[0]][i[2]],
            });
        let stack = |parts: &[Vec<Vec<f32>>], width: usize| -> Tensor {
            let shape: Vec<usize> = if batched {
                vec![states, batch, width]
            } else {
                vec![states, width]
            };
            ArrayD::from_shape_fn(IxDyn(&shape), |i| {
                if batched {
                    parts[i[0]][i[1]][i[2]]
                } else {
                    parts[i[0]][0][i[1]]
                }
            })
        };
        let output = Value::tensor(output);
        let h = Value::tensor(stack(&h_n, self.out_size));
        Ok(if self.lstm {
            let c = Value::tensor(stack(&c_n, self.hidden));
            Value::Tuple(Rc::new(vec![output, Value::Tuple(Rc::new(vec![h, c]))]))
        } else {
            Value::Tuple(Rc::new(vec![output, h]))
        })
    }

    /// The initial hidden (and cell) states, per layer and direction, per
    /// sample: zeros, or `hx` of the states' shapes.
    fn initial_states(
        &self,
        hx: Option<&Value>,
        states: usize,
        batch: usize,
        batched: bool,
    ) -> Outcome<(Rows, Rows)> {
        let zeros = |width: usize| vec![vec![vec![0.0; width]; batch]; states];
        let read = |value: &Value, width: usize, what: &str| -> Outcome<Rows> {
            let t = value.as_tensor().ok_or_else(|| {
                Failure::shape(format!("`{}`: {what} must be a tensor", self.name()))
            })?;
            let expected: Vec<usize> = if batched {
                vec![states, batch, width]
            } else {
                vec![states, width]
            };
            if t.shape() != expected.as_slice() {
                let dims =
                    |d: &[usize]| dims_text(&d.iter().map(|x| *x as i64).collect::<Vec<_>>());
                return Err(Failure::shape(format!(
                    "`{}`: expected {what} size {}, got {}",
                    self.name(),
                    dims(&expected),
                    dims(t.shape())
                )));
            }
            Ok((0..states)
                .map(|s| {
                    (0..batch)
                        .map(|n| {
                            (0..width)
                                .map(|f| {
                                    if batched {
                                        t[[s, n, f].as_slice()]
                                    } else {
                                        t[[s, f].as_slice()]
                                    }
                                })
                                .collect()
                        })
                        .collect()
                })
                .collect())
        };
        match (hx, self.lstm) {
            (None | Some(Value::None), _) => Ok((zeros(self.out_size), zeros(self.hidden))),
            (Some(Value::Tuple(parts) | Value::List(parts)), true) if parts.len() == 2 => Ok((
                read(&parts[0], self.out_size, "hx[0]")?,
                read(&parts[1], self.hidden, "hx[1]")?,
            )),
            (Some(_), true) => Err(Failure::shape("`LSTM`: hx is a pair (h_0, c_0)")),
            (Some(value), false) => Ok((read(value, self.out_size, "hidden")?, zeros(self.hidden))),
        }
    }

    /// One time step of one sample: the new hidden and cell states.
    fn step(&self, cell: &Cell, x: &[f32], h: &[f32], c: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let hidden = self.hidden;
        let affine = |w: &[Vec<f32>], b: &[f32], v: &[f32], row: usize| -> f32 {
            b[row] + w[row].iter().zip(v).map(|(a, b)| a * b).sum::<f32>()
        };
        let sigmoid = |v: f32| 1.0 / (1.0 + (-v).exp());
        if self.lstm {
            // Gates i, f, g, o.
            let gate = |k: usize, j: usize| {
                let row = k * hidden + j;
                affine(&cell.w_ih, &cell.b_ih, x, row) + affine(&cell.w_hh, &cell.b_hh, h, row)
            };
            let mut next_c = vec![0.0; hidden];
            let mut full_h = vec![0.0; hidden];
            for j in 0..hidden {
                let (i, f, g, o) = (
                    sigmoid(gate(0, j)),
                    sigmoid(gate(1, j)),
                    gate(2, j).tanh(),
                    sigmoid(gate(3, j)),
                );
                next_c[j] = f * c[j] + i * g;
                full_h[j] = o * next_c[j].tanh();
            }
            let next_h = match &cell.w_hr {
                Some(w_hr) => w_hr
                    .iter()
                    .map(|row| row.iter().zip(&full_h).map(|(a, b)| a * b).sum())
                    .collect(),
                None => full_h,
            };
            (next_h, next_c)
        } else {
            // Gates r, z, n.
            let input = |k: usize, j: usize| affine(&cell.w_ih, &cell.b_ih, x, k * hidden + j);
            let recurrent = |k: usize, j: usize| affine(&cell.w_hh, &cell.b_hh, h, k * hidden + j);
            let next_h = (0..hidden)
                .map(|j| {
                    let r = sigmoid(input(0, j) + recurrent(0, j));
                    let z = sigmoid(input(1, j) + recurrent(1, j));
                    let n = (input(2, j) + r * recurrent(2, j)).tanh();
                    (1.0 - z) * n + z * h[j]
                })
                .collect();
            (next_h, c.to_vec())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyTorch's parameter `p` of `numel` elements set to
    /// `(arange(numel) % 7 - 3) * 0.05`, row-major.
    fn pattern(rows: usize, cols: usize) -> Vec<Vec<f32>> {
        (0..rows)
            .map(|r| {
                (0..cols)
                    .map(|c| (((r * cols + c) % 7) as f32 - 3.0) * 0.05)
                    .collect()
            })
            .collect()
    }

    fn layer(
        lstm: bool,
        layers: usize,
        bidirectional: bool,
        batch_first: bool,
        projection: usize,
    ) -> Recurrent {
        let (input_size, hidden) = (3, 4);
        let out_size = if projection > 0 { projection } else { hidden };
        let gates = if lstm { 4 } else { 3 };
        let directions = if bidirectional { 2 } else { 1 };
        let mut cells = Vec::new();
        for l in 0..layers {
            let input = if l == 0 {
                input_size
            } else {
                out_size * directions
            };
            for _ in 0..directions {
                cells.push(Cell {
                    w_ih: pattern(gates * hidden, input),
                    w_hh: pattern(gates * hidden, out_size),
                    b_ih: pattern(1, gates * hidden).remove(0),
                    b_hh: pattern(1, gates * hidden).remove(0),
                    w_hr: (projection > 0).then(|| pattern(projection, hidden)),
                });
            }
        }
        Recurrent {
            lstm,
            input_size,
            hidden,
            out_size,
            layers,
            bidirectional,
            batch_first,
            cells,
        }
    }

    /// `(arange(12) % 5 - 2) * 0.3`, shaped `[2, 2, 3]`; the first six
    /// outputs and first four final hidden values, rounded.
    fn run(r: &Recurrent) -> (Vec<usize>, Vec<f32>, Vec<usize>, Vec<f32>) {
        let x = ArrayD::from_shape_fn(IxDyn(&[2, 2, 3]), |i| {
            ((((i[0] * 6 + i[1] * 3 + i[2]) % 5) as f32) - 2.0) * 0.3
        });
        let ctx = OpContext::new(0, 1 << 20);
        let Value::Tuple(parts) = r.apply(&ctx, &x, None).unwrap() else {
            panic!("a tuple")
        };
        let output = parts[0].as_tensor().unwrap();
        let h = match &parts[1] {
            Value::Tuple(states) => states[0].as_tensor().unwrap(),
            other => other.as_tensor().unwrap(),
        };
        let round = |t: &Tensor, n: usize| -> Vec<f32> {
            t.iter()
                .take(n)
                .map(|v| (v * 10_000.0).round() / 10_000.0)
                .collect()
        };
        (
            output.shape().to_vec(),
            round(&output, 6),
            h.shape().to_vec(),
            round(&h, 4),
        )
    }

    #[test]
    fn lstm_and_gru_follow_pytorch() {
        // Printed by torch 1.13 for the same weights and input.
        assert_eq!(
            run(&layer(true, 1, false, false, 0)),
            (
                vec![2, 2, 4],
                vec![-0.0546, -0.0359, 0.0063, -0.0011, -0.0491, -0.0214],
                vec![1, 2, 4],
                vec![-0.0689, -0.0646, 0.0072, 0.0059]
            )
        );
        assert_eq!(
            run(&layer(false, 1, false, false, 0)),
            (
                vec![2, 2, 4],
                vec![-0.0798, -0.0504, 0.0132, -0.0161, -0.0715, -0.0265],
                vec![1, 2, 4],
                vec![-0.0972, -0.0913, 0.0172, -0.0061]
            )
        );
        assert_eq!(
            run(&layer(true, 2, true, true, 0)),
            (
                vec![2, 2, 8],
                vec![-0.0483, -0.0267, 0.0032, 0.024, -0.0741, -0.0384],
                vec![4, 2, 4],
                vec![-0.0797, -0.0391, -0.0079, 0.0641]
            )
        );
        assert_eq!(
            run(&layer(true, 1, false, false, 2)),
            (
                vec![2, 2, 2],
                vec![0.0115, -0.0052, 0.0099, -0.0156, 0.0163, -0.0093],
                vec![1, 2, 2],
                vec![0.0163, -0.0093, 0.0118, -0.0125]
            )
        );
    }
}
