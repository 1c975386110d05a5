//! Unit tests of [`super`]: codes, two stages, rows as saved.

use super::*;

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

#[test]
fn quantised_rows_keep_cosines_and_belong_to_their_entry() {
    let mut vs = Vectors::new(4);
    let a = unit(&[1.0, 2.0, 0.5, -1.0]);
    let b = unit(&[-1.0, 0.2, 0.9, 0.1]);
    vs.set(0, id_key("mem-a"), &a);
    vs.set(2, id_key("mem-b"), &b);
    assert_eq!(vs.present(), 2);
    let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let got = vs.cosine(2, &a).unwrap();
    // Each coordinate within half a step: the cosine within half a step times Σ|a|.
    let bound =
        vs.row(2, id_key("mem-b")).unwrap().scale / 2.0 * a.iter().map(|x| x.abs()).sum::<f32>();
    assert!((got - exact).abs() <= bound + 1e-6, "{got} vs {exact}");
    assert!(vs.cosine(1, &a).is_none(), "no row at 1");
    assert!(
        vs.row(0, id_key("mem-b")).is_none(),
        "a row is its entry's only"
    );
    let near = vs.nearest(&a, 1, &|_| true);
    assert_eq!(near[0].0, 0);
    let near = vs.nearest(&a, 5, &|p| p != 0);
    assert_eq!(near.iter().map(|n| n.0).collect::<Vec<_>>(), vec![2]);
}

/// A deterministic pseudo-random unit vector of `dims` (odd, to cover a half byte).
fn pseudo(seed: u64, dims: usize) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<f32> = (0..dims)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 2001) as f32 / 1000.0 - 1.0
        })
        .collect();
    unit(&v)
}

#[test]
fn codes_keep_every_coordinate_within_half_a_step_on_odd_dimensions() {
    let dims = 37;
    let mut vs = Vectors::new(dims);
    let v = pseudo(7, dims);
    vs.set(3, 9, &v);
    let row = vs.row(3, 9).unwrap();
    assert_eq!(row.nibbles.len(), 19);
    for (i, x) in v.iter().enumerate() {
        let b = row.nibbles[i / 2];
        let m = f32::from(if i % 2 == 0 { b & 15 } else { b >> 4 });
        let sign = if row.signs[i / 64] >> (i % 64) & 1 == 1 {
            1.0
        } else {
            -1.0
        };
        assert!((sign * m * row.scale - x).abs() <= row.scale / 2.0 + 1e-6);
        assert_eq!(row.signs[i / 64] >> (i % 64) & 1 == 1, *x > 0.0, "sign {i}");
    }
    // Each coordinate's cosine with a basis vector is that coordinate, quantised.
    for i in 0..dims {
        let mut e = vec![0.0; dims];
        e[i] = 1.0;
        let c = vs.cosine(3, &e).unwrap();
        assert!(
            (c - v[i]).abs() <= row.scale / 2.0 + 1e-6,
            "{i}: {c} vs {}",
            v[i]
        );
    }
    let mut back = Vectors::new(dims);
    assert!(back.set_raw(3, 9, row.as_row()));
    assert_eq!(back.cosine(3, &v), vs.cosine(3, &v));
    assert!(
        !Vectors::new(36).set_raw(0, 1, row.as_row()),
        "a row of other dimensions"
    );
}

#[test]
fn two_stage_search_with_every_row_a_candidate_is_the_exact_search() {
    let dims = 64;
    let mut vs = Vectors::new(dims);
    for p in 0..500u32 {
        if p % 7 != 3 {
            vs.set(p, u64::from(p) + 1, &pseudo(u64::from(p), dims));
        }
    }
    let keep = |p: u32| !p.is_multiple_of(5);
    for seed in 1000..1010 {
        let q = pseudo(seed, dims);
        let exact = vs.nearest_exact(&q, 10, &keep);
        assert_eq!(exact.len(), 10);
        assert!(exact.iter().all(|(p, _)| keep(*p) && vs.has(*p)));
        assert!(exact.windows(2).all(|w| w[0].1 >= w[1].1));
        assert_eq!(vs.nearest_two_stage(&q, 10, &keep, 500), exact);
        // Fewer candidates: a subset of the rows, still best first and kept.
        let few = vs.nearest_two_stage(&q, 10, &keep, 20);
        assert_eq!(few.len(), 10);
        assert!(few.iter().all(|(p, _)| keep(*p)));
        assert!(few.windows(2).all(|w| w[0].1 >= w[1].1));
    }
    // A `keep` that refuses almost everything still finds what it accepts.
    let only = |p: u32| p == 499 || p == 8;
    let q = pseudo(1, dims);
    let got = vs.nearest_two_stage(&q, 10, &only, 20);
    let mut ps: Vec<u32> = got.iter().map(|g| g.0).collect();
    ps.sort_unstable();
    assert_eq!(ps, vec![8, 499]);
}

#[test]
fn a_search_scores_a_hundredth_of_the_rows_within_its_bounds() {
    assert_eq!(candidates(EXACT_UP_TO + 1), CANDIDATES);
    assert_eq!(candidates(100_000), CANDIDATES);
    assert_eq!(candidates(1_000_000), 10_000);
    assert_eq!(candidates(10_000_000), MAX_CANDIDATES);
}

#[test]
fn sign_bits_find_the_nearest_row_first() {
    // A row equal to the query has distance 0: among rows that differ, it is
    // taken first even when only one candidate is scored.
    let dims = 384;
    let mut vs = Vectors::new(dims);
    for p in 0..200u32 {
        vs.set(p, u64::from(p) + 1, &pseudo(u64::from(p) + 50, dims));
    }
    let q = pseudo(50 + 123, dims);
    let got = vs.nearest_two_stage(&q, 1, &|_| true, 1);
    assert_eq!(got[0].0, 123);
}
