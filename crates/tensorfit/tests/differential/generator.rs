//! Random well-formed Tensor programs: chains of prelude operations on
//! tensors of random concrete shapes, with branches, loops, calls of
//! shape-generic functions, index-notation kernels and holes. A statement
//! is sometimes made wrong on purpose (a mismatched operand, a false claim)
//! so that reported errors are exercised too. The generator knows the
//! shapes it builds, but the verdicts are the interpreter's, not its own.

use tensorfit_run::Rng;

/// Shape-generic functions the programs call; each is written into a
/// program only when it is used.
const FUNCTIONS: &[(&str, &str)] = &[
    ("lin", "fn lin(x: Tensor[n, k], w: Tensor[k, m]) -> Tensor[n, m] {\n  let y = x @ w\n  return relu(y)\n}\n"),
    ("pair_sum", "fn pair_sum(a: Tensor[..s], b: Tensor[..s]) -> Tensor[..s] {\n  return a + b\n}\n"),
    ("flip", "fn flip(x: Tensor[n, m]) -> Tensor[m, n] {\n  let y = transpose(x, 0, 1) |-> [m, n]\n  return y\n}\n"),
    ("fold", "fn fold(x: Tensor[n, m], k: Int) -> Tensor[n, k] {\n  assert m % k == 0\n  let r = reshape(x, n, m / k, k)\n  return r.sum(dim: 1)\n}\n"),
    ("repeat_add", "fn repeat_add(x: Tensor[n, m], times: Int) -> Tensor[n, m] {\n  var acc = x\n  for i in 0..times {\n    acc = acc + x\n  }\n  return acc\n}\n"),
    ("kernel_mm", "fn kernel_mm(A: Tensor[p, q], B: Tensor[q, r]) -> Tensor[p, r] {\n  let C[i, j] = A[i, k] * B[k, j]\n  return C\n}\n"),
    ("bounded", "fn bounded(x: Tensor[n, m]) -> Tensor[n] where n <= 6 {\n  return x.amax(dim: 1)\n}\n"),
];

pub struct Generated {
    pub text: String,
    pub statements: usize,
}

struct Var {
    name: String,
    shape: Vec<i64>,
}

struct Gen {
    rng: Rng,
    body: String,
    vars: Vec<Var>,
    used: Vec<&'static str>,
    next: usize,
    statements: usize,
    /// Chance of a deliberate mistake per statement, in percent.
    bug_percent: u64,
    /// Whether this program may contain holes.
    holes: bool,
}

pub fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xD1B5);
    let bug_percent = [0, 0, 5, 10, 20][rng.below(5) as usize];
    let holes = rng.below(4) == 0;
    let mut g = Gen {
        rng,
        body: String::new(),
        vars: Vec::new(),
        used: Vec::new(),
        next: 0,
        statements: 0,
        bug_percent,
        holes,
    };
    let length = 4 + g.rng.below(9) as usize;
    let rank = 1 + g.rng.below(4) as usize;
    let shape: Vec<i64> = (0..rank).map(|_| g.dim()).collect();
    g.fresh_input(shape);
    while g.statements < length {
        g.statement();
    }
    let mut text = String::new();
    for (name, source) in FUNCTIONS {
        if g.used.contains(name) {
            text.push_str(source);
        }
    }
    text.push_str(&g.body);
    Generated {
        text,
        statements: g.statements,
    }
}

fn list(shape: &[i64]) -> String {
    let parts: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

impl Gen {
    fn dim(&mut self) -> i64 {
        1 + self.rng.below(6) as i64
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    fn bug(&mut self) -> bool {
        self.chance(self.bug_percent)
    }

    fn name(&mut self) -> String {
        self.next += 1;
        format!("t{}", self.next)
    }

    fn emit(&mut self, line: &str) {
        self.body.push_str(line);
        self.body.push('\n');
        self.statements += 1;
    }

    /// `let tN = randn([...])`.
    fn fresh_input(&mut self, shape: Vec<i64>) -> usize {
        let name = self.name();
        self.emit(&format!("let {name} = randn({})", list(&shape)));
        self.vars.push(Var { name, shape });
        self.vars.len() - 1
    }

    fn define(&mut self, expr: String, shape: Vec<i64>) {
        let name = self.name();
        self.emit(&format!("let {name} = {expr}"));
        self.vars.push(Var { name, shape });
    }

    /// A dimension, sometimes off by one when a mistake is wanted.
    fn maybe_wrong(&mut self, d: i64) -> i64 {
        if self.bug() {
            d + 1
        } else {
            d
        }
    }

    /// A literal of `value`, or a hole `__` in a program that has holes.
    fn literal_or_hole(&mut self, value: i64) -> String {
        if self.holes && self.chance(30) {
            "__".to_owned()
        } else {
            value.to_string()
        }
    }

    fn pick(&mut self) -> usize {
        // Recent values more often: chains grow deeper.
        let n = self.vars.len() as u64;
        let back = self.rng.below(n.min(3));
        (n - 1 - back) as usize
    }

    fn statement(&mut self) {
        let v = self.pick();
        let (x, s) = (self.vars[v].name.clone(), self.vars[v].shape.clone());
        let rank = s.len();
        match self.rng.below(30) {
            0 => {
                let f = ["relu", "sigmoid", "tanh", "exp", "abs", "neg", "gelu"]
                    [self.rng.below(7) as usize];
                self.define(format!("{f}({x})"), s);
            }
            1 => {
                // Broadcasting with a fresh operand: some dimensions 1 or
                // dropped from the front.
                let keep = self.rng.below(rank as u64 + 1) as usize;
                let mut other: Vec<i64> = s[rank - keep..].to_vec();
                for d in other.iter_mut() {
                    if self.chance(30) {
                        *d = 1;
                    }
                }
                if let Some(d) = other.first_mut() {
                    if *d > 1 && self.bug() {
                        *d += 1;
                    }
                }
                let op = ["+", "-", "*"][self.rng.below(3) as usize];
                self.define(format!("{x} {op} randn({})", list(&other)), s);
            }
            2 if rank >= 1 => {
                let k = s[rank - 1];
                let m = self.dim();
                let written = self.maybe_wrong(k);
                let k_text = self.literal_or_hole(written);
                let mut out = s.clone();
                if rank == 1 {
                    out.pop();
                } else {
                    out[rank - 1] = m;
                }
                self.define(format!("{x} @ randn([{k_text}, {m}])"), out);
            }
            3 if rank >= 2 => {
                let last = s[rank - 1];
                let mut out = vec![s[..rank - 1].iter().product::<i64>()];
                out.push(last);
                let first = if self.chance(50) {
                    "-1".to_owned()
                } else {
                    self.literal_or_hole(out[0])
                };
                let last_text = self.maybe_wrong(last);
                self.define(format!("reshape({x}, {first}, {last_text})"), out);
            }
            4 if rank >= 2 => {
                let start = self.rng.below(rank as u64 - 1) as usize;
                let mut out = s[..start].to_vec();
                out.push(s[start..].iter().product());
                self.define(format!("flatten({x}, start_dim: {start})"), out);
            }
            5 if rank >= 2 => {
                let (a, b) = (
                    self.rng.below(rank as u64) as usize,
                    self.rng.below(rank as u64) as usize,
                );
                let mut out = s.clone();
                out.swap(a, b);
                self.define(format!("transpose({x}, {a}, {b})"), out);
            }
            6 if rank < 4 => {
                let at = self.rng.below(rank as u64 + 1) as usize;
                let mut out = s.clone();
                out.insert(at, 1);
                self.define(format!("unsqueeze({x}, {at})"), out);
            }
            7 if rank >= 1 => {
                let d = self.rng.below(rank as u64) as usize;
                let keep = self.chance(50);
                let mut out = s.clone();
                if keep {
                    out[d] = 1;
                } else {
                    out.remove(d);
                }
                let f = ["sum", "mean", "amax", "amin"][self.rng.below(4) as usize];
                self.define(format!("{f}({x}, dim: {d}, keepdim: {keep})"), out);
            }
            8 if rank >= 1 => {
                let d = self.rng.below(rank as u64) as usize;
                let mut other = s.clone();
                other[d] = self.dim();
                let mut out = s.clone();
                out[d] += other[d];
                if self.bug() {
                    let e = (d + 1) % rank;
                    other[e] += 1;
                }
                self.define(
                    format!("cat([{x}, randn({})], dim: {d})", list(&other)),
                    out,
                );
            }
            9 if rank >= 1 => {
                let d = self.rng.below(rank as u64) as usize;
                let length = 1 + self.rng.below(s[d] as u64) as i64;
                let start = self.rng.below((s[d] - length + 1) as u64) as i64;
                let start = if self.bug() { s[d] - length + 1 } else { start };
                let mut out = s.clone();
                out[d] = length;
                self.define(format!("narrow({x}, {d}, {start}, {length})"), out);
            }
            10 if rank >= 1 => {
                let input = s[rank - 1];
                let out_features = self.dim();
                let written = self.maybe_wrong(input);
                let in_text = self.literal_or_hole(written);
                let layer = self.name();
                self.emit(&format!("let {layer} = Linear({in_text}, {out_features})"));
                let mut out = s.clone();
                out[rank - 1] = out_features;
                self.define(format!("{layer}({x})"), out);
            }
            11 if rank == 4 && s[2] >= 2 && s[3] >= 2 => {
                let c = s[1];
                let o = self.dim();
                let k = 1 + self.rng.below(s[2].min(s[3]).min(3) as u64) as i64;
                let written = self.maybe_wrong(c);
                let out = vec![s[0], o, s[2] - k + 1, s[3] - k + 1];
                let layer = self.name();
                self.emit(&format!(
                    "let {layer} = Conv2d({written}, {o}, kernel_size: {k})"
                ));
                self.define(format!("{layer}({x})"), out);
            }
            12 if rank == 4 && s[2] >= 2 && s[3] >= 2 => {
                let out = vec![s[0], s[1], s[2] / 2, s[3] / 2];
                self.define(format!("max_pool2d({x}, kernel_size: 2)"), out);
            }
            13 => {
                // A claim, true unless a mistake is wanted.
                let mut claimed = s.clone();
                if let Some(d) = claimed.first_mut() {
                    *d = self.maybe_wrong(*d);
                }
                let pattern: Vec<String> = claimed
                    .iter()
                    .map(|d| {
                        if self.chance(20) {
                            "?".to_owned()
                        } else {
                            d.to_string()
                        }
                    })
                    .collect();
                self.define(format!("{x} |-> [{}]", pattern.join(", ")), s);
            }
            14 if rank >= 1 => {
                let d = self.rng.below(rank as u64) as usize;
                let value = self.maybe_wrong(s[d]);
                self.emit(&format!("assert {x}.shape[{d}] == {value}"));
            }
            15 if rank >= 1 => {
                // A branch on a shape: both arms give the same shape.
                let d = self.rng.below(rank as u64) as usize;
                let threshold = self.dim();
                let name = self.name();
                self.emit(&format!("var {name} = {x}"));
                self.emit(&format!(
                    "if {x}.shape[{d}] > {threshold} {{\n  {name} = relu({x})\n}} else {{\n  {name} = {x} * 2.0\n}}"
                ));
                self.vars.push(Var { name, shape: s });
            }
            16 => {
                let times = self.rng.below(3);
                let name = self.name();
                self.emit(&format!("var {name} = zeros({})", list(&s)));
                self.emit(&format!(
                    "for i in 0..{times} {{\n  {name} = {name} + {x}\n}}"
                ));
                self.vars.push(Var { name, shape: s });
            }
            17 if rank == 2 => {
                let m = self.dim();
                let k = self.maybe_wrong(s[1]);
                self.used_function("lin");
                self.define(format!("lin({x}, randn([{k}, {m}]))"), vec![s[0], m]);
            }
            18 => {
                let mut other = s.clone();
                if let Some(d) = other.last_mut() {
                    *d = self.maybe_wrong(*d);
                }
                self.used_function("pair_sum");
                self.define(format!("pair_sum({x}, randn({}))", list(&other)), s);
            }
            19 if rank == 2 => {
                let f = ["flip", "repeat_add", "bounded", "fold"][self.rng.below(4) as usize];
                self.used_function(f);
                match f {
                    "flip" => self.define(format!("flip({x})"), vec![s[1], s[0]]),
                    "repeat_add" => {
                        let times = self.rng.below(3);
                        self.define(format!("repeat_add({x}, {times})"), s);
                    }
                    "bounded" => self.define(format!("bounded({x})"), vec![s[0]]),
                    _ => {
                        let k = if self.bug() {
                            s[1] + 1
                        } else {
                            divisor(s[1], &mut self.rng)
                        };
                        self.define(format!("fold({x}, {k})"), vec![s[0], k]);
                    }
                }
            }
            20 if rank == 2 => {
                let r = self.dim();
                let q = self.maybe_wrong(s[1]);
                if self.chance(50) {
                    self.used_function("kernel_mm");
                    self.define(format!("kernel_mm({x}, randn([{q}, {r}]))"), vec![s[0], r]);
                } else {
                    let b = self.name();
                    self.emit(&format!("let {b} = randn([{q}, {r}])"));
                    let name = self.name();
                    self.emit(&format!("let {name}[i, j] = {x}[i, k] * {b}[k, j]"));
                    self.vars.push(Var {
                        name,
                        shape: vec![s[0], r],
                    });
                }
            }
            21 if (1..=2).contains(&rank) => {
                let n = self.dim();
                let (equation, out) = if rank == 1 {
                    ("i,j->ij", vec![s[0], n])
                } else {
                    ("ij,jk->ik", vec![s[0], n])
                };
                let operand = if rank == 1 {
                    vec![n]
                } else {
                    vec![self.maybe_wrong(s[1]), n]
                };
                self.define(
                    format!("einsum(\"{equation}\", {x}, randn({}))", list(&operand)),
                    out,
                );
            }
            22 if rank >= 1 => {
                // Padding the last dimension; a mistake crops it away.
                let last = s[rank - 1];
                let (before, after) = if self.bug() {
                    (-last, 0)
                } else {
                    (self.rng.below(3) as i64, self.rng.below(3) as i64)
                };
                let mut out = s.clone();
                out[rank - 1] = last + before + after;
                self.define(format!("pad({x}, [{before}, {after}])"), out);
            }
            23 if rank >= 1 => {
                // A count per dimension, maybe one more in front; a mistake
                // gives too few.
                let mut counts: Vec<i64> =
                    (0..rank).map(|_| 1 + self.rng.below(2) as i64).collect();
                if self.chance(30) {
                    counts.insert(0, 2);
                }
                let mut out: Vec<i64> = counts.clone();
                let offset = counts.len() - rank;
                for (k, d) in s.iter().enumerate() {
                    out[offset + k] *= d;
                }
                if rank >= 2 && self.bug() {
                    counts.truncate(rank - 1);
                }
                self.define(format!("{x}.repeat({})", list(&counts)), out);
            }
            24 if rank >= 1 => {
                // Rows picked by a vector of indices; a mistake passes a
                // matrix.
                let d = self.rng.below(rank as u64) as usize;
                let n = self.dim();
                let index = if self.bug() {
                    format!("zeros([{n}, 1])")
                } else {
                    format!("zeros([{n}])")
                };
                let mut out = s.clone();
                out[d] = n;
                self.define(format!("index_select({x}, {d}, {index})"), out);
            }
            25 if (3..=5).contains(&rank) => {
                let mut out = s.clone();
                for d in out.iter_mut().skip(2) {
                    *d *= 2;
                }
                let call = if self.bug() {
                    format!("interpolate({x}, size: 2, scale_factor: 2)")
                } else {
                    format!("interpolate({x}, scale_factor: 2)")
                };
                self.define(call, out);
            }
            26 if rank >= 1 => {
                let d = self.rng.below(rank as u64) as usize;
                let f = [
                    "flip({x}, [{d}])",
                    "roll({x}, 1, dims: [{d}])",
                    "cumsum({x}, {d})",
                ][self.rng.below(3) as usize]
                    .replace("{x}", &x)
                    .replace("{d}", &d.to_string());
                self.define(f, s);
            }
            27 if rank >= 2 => {
                // Groups that divide the channels; a mistake does not.
                let channels = s[1];
                let groups = if self.bug() {
                    channels + 1
                } else {
                    divisor(channels, &mut self.rng)
                };
                let layer = self.name();
                self.emit(&format!("let {layer} = GroupNorm({groups}, {channels})"));
                self.define(format!("{layer}({x})"), s);
            }
            28 if rank >= 1 => self.subscript(&x, &s),
            29 => {
                // A function's declared result; a mistake declares another
                // width than the body returns.
                let n = s.iter().product::<i64>();
                let declared = self.maybe_wrong(n);
                let f = format!("flat{}", self.next);
                self.next += 1;
                self.emit(&format!(
                    "fn {f}(x: Tensor[..d]) -> Tensor[{declared}] {{\n  return reshape(x, -1)\n}}"
                ));
                self.define(format!("{f}({x})"), vec![declared]);
            }
            _ => {
                let rank = 1 + self.rng.below(4) as usize;
                let shape: Vec<i64> = (0..rank).map(|_| self.dim()).collect();
                self.fresh_input(shape);
            }
        }
    }

    /// `x[...]`: one dimension indexed or sliced (with Python's clamped
    /// bounds), the others kept by `:` or `...`, sometimes a `None`; a
    /// mistake indexes one past the end.
    fn subscript(&mut self, x: &str, s: &[i64]) {
        let rank = s.len();
        let d = self.rng.below(rank as u64) as usize;
        let size = s[d];
        let mut out: Vec<i64> = s.to_vec();
        let item = match self.rng.below(4) {
            0 => {
                let at = if self.bug() {
                    size
                } else {
                    self.rng.below(size as u64) as i64 - if self.chance(30) { size } else { 0 }
                };
                out.remove(d);
                at.to_string()
            }
            1 => {
                // A start inside the dimension (either sign), a stop
                // anywhere in -size-2..size+2, clamped as Python does; a
                // stop that would leave nothing is left out.
                let a = self.rng.below(2 * size as u64) as i64 - size;
                let b = self.rng.below((2 * size + 5) as u64) as i64 - size - 2;
                let clamp = |v: i64| {
                    if v < 0 {
                        (v + size).max(0)
                    } else {
                        v.min(size)
                    }
                };
                if clamp(b) > clamp(a) {
                    out[d] = clamp(b) - clamp(a);
                    format!("{a}:{b}")
                } else {
                    out[d] = size - clamp(a);
                    format!("{a}:")
                }
            }
            2 => {
                let step = 1 + self.rng.below(3) as i64;
                out[d] = (size + step - 1) / step;
                format!("::{step}")
            }
            _ => {
                let k = 1 + self.rng.below(size as u64) as i64;
                out[d] = k;
                format!(":{k}")
            }
        };
        let mut items: Vec<String> = Vec::new();
        if d + 1 == rank && d > 0 && self.chance(50) {
            items.push("...".to_owned());
        } else {
            items.extend((0..d).map(|_| ":".to_owned()));
        }
        items.push(item);
        if self.chance(25) {
            items.push("None".to_owned());
            let at = out.len() - (rank - d - 1);
            out.insert(at, 1);
        }
        self.define(format!("{x}[{}]", items.join(", ")), out);
    }

    fn used_function(&mut self, name: &'static str) {
        if !self.used.contains(&name) {
            self.used.push(name);
        }
    }
}

fn divisor(n: i64, rng: &mut Rng) -> i64 {
    let divisors: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
    divisors[rng.below(divisors.len() as u64) as usize]
}
