//! The CTC loss of one cell and its gradient with respect to the scores before the
//! log-softmax, by the forward-backward recursion in log space (Graves et al. 2006):
//! the gradient is `softmax - occupancy`, where the occupancy of class `k` at step `t`
//! is the posterior probability that an alignment of the label emits `k` there.

fn lse(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// `-log p(target | logp)` and its gradient `[steps][classes]` with respect to the
/// pre-softmax scores; `logp` is `[steps][classes]` log-probabilities. `None` when no
/// alignment of the target fits in `steps` (the loss is infinite).
pub fn ctc_loss_grad(
    logp: &[f32],
    steps: usize,
    classes: usize,
    target: &[u32],
    blank: usize,
) -> Option<(f64, Vec<f32>)> {
    debug_assert_eq!(logp.len(), steps * classes);
    let ext: Vec<usize> = std::iter::once(blank)
        .chain(target.iter().flat_map(|&c| [c as usize, blank]))
        .collect();
    let s_len = ext.len();
    let lp = |t: usize, k: usize| f64::from(logp[t * classes + k]);
    let ninf = f64::NEG_INFINITY;
    // alpha[t][s]: log probability of the prefixes that end at `s` at step `t`, emission
    // at `t` included; beta[t][s]: of the suffixes from `s` at `t`, emission at `t`
    // excluded.
    let mut alpha = vec![ninf; steps * s_len];
    let mut beta = vec![ninf; steps * s_len];
    let skip = |s: usize| s >= 2 && ext[s] != blank && ext[s] != ext[s - 2];
    alpha[0] = lp(0, ext[0]);
    if s_len > 1 {
        alpha[1] = lp(0, ext[1]);
    }
    for t in 1..steps {
        for s in 0..s_len {
            let prev = &alpha[(t - 1) * s_len..t * s_len];
            let mut a = prev[s];
            if s >= 1 {
                a = lse(a, prev[s - 1]);
            }
            if skip(s) {
                a = lse(a, prev[s - 2]);
            }
            alpha[t * s_len + s] = a + lp(t, ext[s]);
        }
    }
    let last = (steps - 1) * s_len;
    beta[last + s_len - 1] = 0.0;
    if s_len > 1 {
        beta[last + s_len - 2] = 0.0;
    }
    for t in (0..steps - 1).rev() {
        for s in 0..s_len {
            let next = |s2: usize| beta[(t + 1) * s_len + s2] + lp(t + 1, ext[s2]);
            let mut b = next(s);
            if s + 1 < s_len {
                b = lse(b, next(s + 1));
            }
            if s + 2 < s_len && skip(s + 2) {
                b = lse(b, next(s + 2));
            }
            beta[t * s_len + s] = b;
        }
    }
    let mut total = alpha[last + s_len - 1];
    if s_len > 1 {
        total = lse(total, alpha[last + s_len - 2]);
    }
    if !total.is_finite() {
        return None;
    }
    let mut grad = vec![0f32; steps * classes];
    for t in 0..steps {
        let mut occ = vec![ninf; classes];
        for s in 0..s_len {
            let v = alpha[t * s_len + s] + beta[t * s_len + s];
            occ[ext[s]] = lse(occ[ext[s]], v);
        }
        for k in 0..classes {
            let p = lp(t, k).exp();
            let g = (occ[k] - total).exp();
            grad[t * classes + k] = (p - g) as f32;
        }
    }
    Some((-total, grad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_softmax(z: &[f64], classes: usize) -> Vec<f32> {
        z.chunks(classes)
            .flat_map(|row| {
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let s: f64 = row.iter().map(|x| (x - m).exp()).sum();
                row.iter().map(move |x| (x - m - s.ln()) as f32)
            })
            .collect()
    }

    /// The probability of a label summed over every path that collapses to it.
    fn brute(logp: &[f32], steps: usize, classes: usize, target: &[u32], blank: usize) -> f64 {
        let mut total = 0.0;
        for code in 0..classes.pow(steps as u32) {
            let mut c = code;
            let path: Vec<usize> = (0..steps)
                .map(|_| {
                    let k = c % classes;
                    c /= classes;
                    k
                })
                .collect();
            let mut out = Vec::new();
            let mut prev = None;
            for &k in &path {
                if Some(k) != prev && k != blank {
                    out.push(k as u32);
                }
                prev = Some(k);
            }
            if out == target {
                total += path
                    .iter()
                    .enumerate()
                    .map(|(t, &k)| f64::from(logp[t * classes + k]))
                    .sum::<f64>()
                    .exp();
            }
        }
        -total.ln()
    }

    fn scores(steps: usize, classes: usize) -> Vec<f64> {
        (0..steps * classes)
            .map(|i| ((i * 7919 % 23) as f64 - 11.0) / 5.0)
            .collect()
    }

    #[test]
    fn loss_matches_the_sum_over_paths() {
        let (steps, classes) = (5, 4);
        let z = scores(steps, classes);
        let logp = log_softmax(&z, classes);
        for target in [
            vec![],
            vec![1],
            vec![1, 2],
            vec![2, 2],
            vec![1, 2, 1],
            vec![3, 3, 1],
        ] {
            let (loss, _) = ctc_loss_grad(&logp, steps, classes, &target, 0).expect("fits");
            let want = brute(&logp, steps, classes, &target, 0);
            assert!((loss - want).abs() < 1e-5, "{target:?}: {loss} vs {want}");
        }
        // Three repeated labels need five steps (two blanks between them): four do not.
        assert!(ctc_loss_grad(&logp[..4 * classes], 4, classes, &[2, 2, 2], 0).is_none());
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (steps, classes) = (4, 3);
        let target = [1u32, 2];
        let z = scores(steps, classes);
        let logp = log_softmax(&z, classes);
        let (_, grad) = ctc_loss_grad(&logp, steps, classes, &target, 0).expect("fits");
        let h = 1e-2;
        for i in 0..z.len() {
            let mut up = z.clone();
            up[i] += h;
            let mut down = z.clone();
            down[i] -= h;
            let f = |z: &[f64]| brute(&log_softmax(z, classes), steps, classes, &target, 0);
            let numeric = (f(&up) - f(&down)) / (2.0 * h);
            assert!(
                (numeric - f64::from(grad[i])).abs() < 2e-3,
                "score {i}: {numeric} vs {}",
                grad[i]
            );
        }
    }
}
