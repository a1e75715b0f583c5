//! The interpreter's seeded generator (SplitMix64), with what picking
//! mutations needs: every failure reproduces from its seed.

/// `tensorfit_run::Rng` mixes its seed with this constant; undone here so
/// that a fuzzing seed is the generator's state itself.
const SEED_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

pub struct Rng(tensorfit_run::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(tensorfit_run::Rng::new(seed ^ SEED_MIX))
    }

    /// The generator for item `index` of a run seeded `seed`: items do not
    /// depend on each other, so a run split over workers makes the same ones.
    pub fn for_item(seed: u64, index: u64) -> Rng {
        let mut mixer = Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        Rng::new(mixer.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
