//! A miss-ratio curve as a step function: sorted (distance, cumulative hits) points, where an
//! access with stack distance d hits every LRU cache of at least d entries.

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct MissRatioCurve {
    /// Ascending distances (entries) and the hit count/bytes of all accesses at or below them.
    pub(crate) dist: Vec<f64>,
    pub(crate) cum_hits: Vec<f64>,
    pub(crate) cum_hit_bytes: Vec<f64>,
    /// Accesses and bytes the ratios are taken over (estimated for SHARDS).
    pub total: f64,
    pub total_bytes: f64,
    /// Distinct keys (estimated for SHARDS): the cache size beyond which only cold misses
    /// remain.
    pub footprint: f64,
    /// The smallest cache size (entries) the curve measures: 1 for the exact curve, `1/R` for
    /// SHARDS at rate `R` (a sampled distance is a multiple of `1/R`, so smaller caches are
    /// not seen at all).
    pub resolution: f64,
    /// Stated error of the sampling alone at the smallest measured size, where it is largest
    /// (0 for the exact curve); [`MissRatioCurve::error_at`] gives each size's.
    pub expected_error: f64,
    /// A sampled curve's variance weights (`None` when exact).
    #[serde(skip)]
    pub(crate) sampling: Option<Sampling>,
}

/// What a SHARDS curve keeps to state its error at any size: the sampling rate and, per
/// quarter-octave size class ([`super::shards::class_of`]), `Σ m_k(c)²` over the sampled keys
/// (see [`super::shards`]'s header).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sampling {
    pub rate: f64,
    pub per_class: Vec<f64>,
}

/// One row of a plot-ready table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    pub size: u64,
    pub miss_ratio: f64,
    pub byte_miss_ratio: f64,
    /// False below [`MissRatioCurve::resolution`]: the ratios there are not a measurement.
    pub measured: bool,
    /// Expected absolute error of `miss_ratio` (0 when exact), see [`MissRatioCurve::error_at`].
    pub error: f64,
}

impl MissRatioCurve {
    pub(crate) fn from_points(
        mut pts: Vec<(f64, f64, f64)>,
        total: f64,
        total_bytes: f64,
        footprint: f64,
    ) -> Self {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Sized once: the exact curve has a point per distance seen (millions over a large
        // footprint), and growing three vectors by doubling copied them and faulted them in
        // again (huge pages for them measured slower: 0.794 against 0.732 s, 9 alternated runs).
        let n = pts.len();
        let mut c = MissRatioCurve {
            total,
            total_bytes,
            footprint,
            resolution: 1.0,
            dist: Vec::with_capacity(n),
            cum_hits: Vec::with_capacity(n),
            cum_hit_bytes: Vec::with_capacity(n),
            ..Default::default()
        };
        let (mut h, mut hb) = (0.0, 0.0);
        for (d, n, b) in pts {
            h += n;
            hb += b;
            if c.dist.last() == Some(&d) {
                *c.cum_hits.last_mut().unwrap_or(&mut 0.0) = h;
                *c.cum_hit_bytes.last_mut().unwrap_or(&mut 0.0) = hb;
            } else {
                c.dist.push(d);
                c.cum_hits.push(h);
                c.cum_hit_bytes.push(hb);
            }
        }
        c
    }

    /// (request-weighted, byte-weighted) miss ratio of an LRU cache of `size` entries.
    pub fn miss_ratio(&self, size: u64) -> (f64, f64) {
        if self.total <= 0.0 {
            return (0.0, 0.0);
        }
        let i = self.dist.partition_point(|&d| d <= size as f64);
        let (h, hb) =
            if i == 0 { (0.0, 0.0) } else { (self.cum_hits[i - 1], self.cum_hit_bytes[i - 1]) };
        let mr = ((self.total - h) / self.total).clamp(0.0, 1.0);
        let bmr = if self.total_bytes > 0.0 {
            ((self.total_bytes - hb) / self.total_bytes).clamp(0.0, 1.0)
        } else {
            mr
        };
        (mr, bmr)
    }

    /// The curve at `n` cache sizes spaced geometrically from the resolution (1 entry when
    /// exact) to the footprint (the last point, where only cold misses remain).
    pub fn table(&self, n: usize) -> Vec<CurvePoint> {
        let lo = self.resolution.ceil().max(1.0);
        let top = self.footprint.max(lo);
        let n = n.max(2);
        let span = top / lo;
        let mut sizes: Vec<u64> = (0..n)
            .map(|i| (lo * span.powf(i as f64 / (n - 1) as f64)).round().max(1.0) as u64)
            .collect();
        sizes.dedup();
        self.at(&sizes)
    }

    pub fn at(&self, sizes: &[u64]) -> Vec<CurvePoint> {
        sizes
            .iter()
            .map(|&size| {
                let (miss_ratio, byte_miss_ratio) = self.miss_ratio(size);
                let measured = size as f64 >= self.resolution;
                let error = self.error_at(size);
                CurvePoint { size, miss_ratio, byte_miss_ratio, measured, error }
            })
            .collect()
    }

    /// Stated absolute error of a sampled curve at `size` (0 when exact): the sampling's
    /// [`MissRatioCurve::sampling_error`] at that size and the curve's change over the size
    /// uncertainty, added in quadrature (independent errors). A cache of `c` entries holds about `c·R` sampled keys, a count with a
    /// relative standard error of `1/sqrt(c·R)`, so near the resolution a sampled distance
    /// stands for a wide range of sizes and a steep curve moves by half its change over that
    /// range.
    pub fn error_at(&self, size: u64) -> f64 {
        if self.expected_error <= 0.0 {
            return 0.0;
        }
        let c = size as f64;
        let rel = 1.0 / (c / self.resolution).max(1.0).sqrt();
        let lo = (c * (1.0 - rel)).floor().max(0.0) as u64;
        let hi = (c * (1.0 + rel)).ceil() as u64;
        let spread = (self.miss_ratio(lo).0 - self.miss_ratio(hi).0).abs() / 2.0;
        spread.hypot(self.sampling_error(size)).min(1.0)
    }

    /// The sampling's share of the stated error at `size`: [`super::shards::ERROR_Z`] standard
    /// errors of the estimate, from the sampled keys' squared misses at a cache of `size`
    /// entries ([`super::shards::expected_error`]); 0 when exact.
    pub fn sampling_error(&self, size: u64) -> f64 {
        let Some(s) = &self.sampling else { return 0.0 };
        let class = usize::from(super::shards::class_of(size as f64));
        let v = s.per_class.get(class).copied().unwrap_or(0.0);
        super::shards::expected_error(v, s.rate, self.total)
    }

    /// Mean absolute difference of the request-weighted ratio against `other` at `sizes`.
    pub fn mae(&self, other: &MissRatioCurve, sizes: &[u64]) -> f64 {
        if sizes.is_empty() {
            return 0.0;
        }
        let s: f64 =
            sizes.iter().map(|&c| (self.miss_ratio(c).0 - other.miss_ratio(c).0).abs()).sum();
        s / sizes.len() as f64
    }
}
