//! Similarity by meaning: a query vector in 16-bit integers and its cosine with a stored
//! vector (8-bit integers with one scale), computed in integers.

/// A query vector as [`Vectors::cosine_at`] takes it: unit length, in 16-bit integers with one
/// scale (`v[i] ≈ values[i] × scale`, within 1/32,766 of the largest number).
#[derive(Debug, Clone)]
pub(crate) struct PreparedQuery {
    values: Vec<i16>,
    scale: f32,
}

impl PreparedQuery {
    /// `v` made unit length and quantized.
    pub(crate) fn new(v: Vec<f32>) -> Self {
        let v = unit(v);
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 16_383.0 } else { 1.0 };
        let values = v
            .iter()
            .map(|x| (x / scale).round().clamp(-16_383.0, 16_383.0) as i16)
            .collect();
        PreparedQuery { values, scale }
    }

    /// Its cosine similarity with a stored vector: `scale` and the quantized values as stored
    /// (see [`quantize`]).
    pub(crate) fn cosine(&self, scale: f32, values: &[u8]) -> f32 {
        // In integers: the compiler keeps many lanes of it in flight (a sum of floats must
        // be added in order), and 127 × 16,383 × the dimension stays far from overflow.
        let dot: i32 = values
            .iter()
            .zip(&self.values)
            .map(|(&a, &b)| i32::from(a as i8) * i32::from(b))
            .sum();
        dot as f32 * scale * self.scale
    }
}

/// A query vector made unit length.
pub(crate) fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in &mut v {
            *x /= norm;
        }
    }
    v
}
