//! Hand-written CPU operations with their gradients, for the parts of the reader
//! candle runs slowly: a depthwise convolution, a per-channel (or per-plane) bias or
//! scale, and `erf`. candle's generic versions go through broadcasts whose gradients
//! are strided sums on one core; these are direct loops, parallel over planes or
//! channels (each output summed in a fixed order, so results do not depend on the
//! thread count's scheduling).

use candle_core::{CpuStorage, CustomOp1, CustomOp2, Layout, Result, Shape, Tensor};
use rayon::prelude::*;

fn slice<'a>(s: &'a CpuStorage, l: &Layout) -> Result<&'a [f32]> {
    let (a, b) = l
        .contiguous_offsets()
        .ok_or_else(|| candle_core::Error::Msg("custom op on a strided tensor".into()))?;
    Ok(&s.as_slice::<f32>()?[a..b])
}

/// The geometry of a depthwise convolution of `[N, C, h, w]` by `[C, 1, kh, kw]`.
#[derive(Clone, Copy, Debug)]
pub struct Depthwise {
    pub kh: usize,
    pub kw: usize,
    pub sh: usize,
    pub sw: usize,
    pub pt: usize,
    pub pl: usize,
    pub h: usize,
    pub w: usize,
    pub ho: usize,
    pub wo: usize,
}

impl Depthwise {
    /// Output columns `ow` whose input column `ow * sw + j - pl` lies in the row.
    fn cols(&self, j: usize) -> std::ops::Range<usize> {
        let lo = if j >= self.pl {
            0
        } else {
            (self.pl - j).div_ceil(self.sw)
        };
        // ow * sw + j - pl < w  <=>  ow * sw < w + pl - j
        let lim = self.w + self.pl;
        let hi = if lim > j {
            (lim - j).div_ceil(self.sw).min(self.wo)
        } else {
            0
        };
        lo..hi.max(lo)
    }

    fn row(&self, oh: usize, i: usize) -> Option<usize> {
        let ih = (oh * self.sh + i).checked_sub(self.pt)?;
        (ih < self.h).then_some(ih)
    }

    fn planes(&self, l: &Layout) -> Result<usize> {
        let d = l.dims();
        if d.len() != 4 || d[2] != self.h || d[3] != self.w {
            candle_core::bail!("depthwise input of shape {d:?}");
        }
        Ok(d[0] * d[1])
    }
}

pub struct DepthwiseOp(pub Depthwise);
struct DepthwiseGradInput(Depthwise);
struct DepthwiseGradKernel(Depthwise, usize);

impl CustomOp2 for DepthwiseOp {
    fn name(&self) -> &'static str {
        "depthwise"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let g = self.0;
        let (x, k) = (slice(s1, l1)?, slice(s2, l2)?);
        let planes = g.planes(l1)?;
        let c = l1.dims()[1];
        let mut y = vec![0f32; planes * g.ho * g.wo];
        y.par_chunks_mut(g.ho * g.wo)
            .enumerate()
            .for_each(|(p, yp)| {
                let xp = &x[p * g.h * g.w..(p + 1) * g.h * g.w];
                let kp = &k[(p % c) * g.kh * g.kw..];
                for oh in 0..g.ho {
                    let yrow = &mut yp[oh * g.wo..(oh + 1) * g.wo];
                    for i in 0..g.kh {
                        let Some(ih) = g.row(oh, i) else { continue };
                        let xrow = &xp[ih * g.w..(ih + 1) * g.w];
                        for j in 0..g.kw {
                            let kv = kp[i * g.kw + j];
                            for ow in g.cols(j) {
                                yrow[ow] += kv * xrow[ow * g.sw + j - g.pl];
                            }
                        }
                    }
                }
            });
        let d = l1.dims();
        Ok((CpuStorage::F32(y), Shape::from((d[0], d[1], g.ho, g.wo))))
    }

    fn bwd(
        &self,
        x: &Tensor,
        k: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let grad = grad.contiguous()?;
        let dx = grad.apply_op2_no_bwd(k, &DepthwiseGradInput(self.0))?;
        let dk = grad.apply_op2_no_bwd(x, &DepthwiseGradKernel(self.0, k.dim(0)?))?;
        Ok((Some(dx), Some(dk)))
    }
}

impl CustomOp2 for DepthwiseGradInput {
    fn name(&self) -> &'static str {
        "depthwise-grad-input"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let g = self.0;
        let (dy, k) = (slice(s1, l1)?, slice(s2, l2)?);
        let d = l1.dims();
        let c = d[1];
        let planes = d[0] * d[1];
        let mut dx = vec![0f32; planes * g.h * g.w];
        dx.par_chunks_mut(g.h * g.w)
            .enumerate()
            .for_each(|(p, dxp)| {
                let dyp = &dy[p * g.ho * g.wo..(p + 1) * g.ho * g.wo];
                let kp = &k[(p % c) * g.kh * g.kw..];
                for oh in 0..g.ho {
                    let dyrow = &dyp[oh * g.wo..(oh + 1) * g.wo];
                    for i in 0..g.kh {
                        let Some(ih) = g.row(oh, i) else { continue };
                        let dxrow = &mut dxp[ih * g.w..(ih + 1) * g.w];
                        for j in 0..g.kw {
                            let kv = kp[i * g.kw + j];
                            for ow in g.cols(j) {
                                dxrow[ow * g.sw + j - g.pl] += kv * dyrow[ow];
                            }
                        }
                    }
                }
            });
        Ok((CpuStorage::F32(dx), Shape::from((d[0], d[1], g.h, g.w))))
    }
}

impl CustomOp2 for DepthwiseGradKernel {
    fn name(&self) -> &'static str {
        "depthwise-grad-kernel"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (g, c) = (self.0, self.1);
        let (dy, x) = (slice(s1, l1)?, slice(s2, l2)?);
        let n = g.planes(l2)? / c;
        let mut dk = vec![0f32; c * g.kh * g.kw];
        dk.par_chunks_mut(g.kh * g.kw)
            .enumerate()
            .for_each(|(ch, dkc)| {
                for b in 0..n {
                    let p = b * c + ch;
                    let xp = &x[p * g.h * g.w..(p + 1) * g.h * g.w];
                    let dyp = &dy[p * g.ho * g.wo..(p + 1) * g.ho * g.wo];
                    for oh in 0..g.ho {
                        let dyrow = &dyp[oh * g.wo..(oh + 1) * g.wo];
                        for i in 0..g.kh {
                            let Some(ih) = g.row(oh, i) else { continue };
                            let xrow = &xp[ih * g.w..(ih + 1) * g.w];
                            for j in 0..g.kw {
                                let mut s = 0f32;
                                for ow in g.cols(j) {
                                    s += dyrow[ow] * xrow[ow * g.sw + j - g.pl];
                                }
                                dkc[i * g.kw + j] += s;
                            }
                        }
                    }
                }
            });
        Ok((CpuStorage::F32(dk), Shape::from((c, 1, g.kh, g.kw))))
    }
}

/// `x op b` where `x` is `planes` planes of `len` values and plane `p` takes
/// `b[p % b.len()]`: a per-channel bias or scale (`b` of `[1, C, 1, 1]`), or a
/// per-sample, per-channel one (`[N, C, 1, 1]`).
#[derive(Clone, Copy)]
pub struct PlaneOp {
    pub mul: bool,
}

/// Per entry of `b`: the sum over its planes of `g` (`dot` false) or of `g * x`.
struct PlaneReduce {
    dot: bool,
    b_shape: Shape,
}

fn plane_len(l1: &Layout, l2: &Layout) -> Result<(usize, usize)> {
    let (n1, n2) = (l1.shape().elem_count(), l2.shape().elem_count());
    let d = l1.dims();
    if d.len() < 2 || n2 == 0 {
        candle_core::bail!("plane op on shapes {:?} and {:?}", d, l2.dims());
    }
    let planes = d[0] * d[1];
    if !n1.is_multiple_of(planes) || !planes.is_multiple_of(n2) {
        candle_core::bail!("plane op on shapes {:?} and {:?}", d, l2.dims());
    }
    Ok((n1 / planes, n2))
}

impl CustomOp2 for PlaneOp {
    fn name(&self) -> &'static str {
        "plane-op"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (x, b) = (slice(s1, l1)?, slice(s2, l2)?);
        let (len, nb) = plane_len(l1, l2)?;
        let mut y = x.to_vec();
        let mul = self.mul;
        y.par_chunks_mut(len).enumerate().for_each(|(p, yp)| {
            let v = b[p % nb];
            if mul {
                yp.iter_mut().for_each(|e| *e *= v);
            } else {
                yp.iter_mut().for_each(|e| *e += v);
            }
        });
        Ok((CpuStorage::F32(y), l1.shape().clone()))
    }

    fn bwd(
        &self,
        x: &Tensor,
        b: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let grad = grad.contiguous()?;
        let reduce = PlaneReduce {
            dot: self.mul,
            b_shape: b.shape().clone(),
        };
        if self.mul {
            let dx = grad.apply_op2_no_bwd(b, self)?;
            let db = grad.apply_op2_no_bwd(x, &reduce)?;
            Ok((Some(dx), Some(db)))
        } else {
            let db = grad.apply_op2_no_bwd(&grad, &reduce)?;
            Ok((Some(grad), Some(db)))
        }
    }
}

impl CustomOp2 for PlaneReduce {
    fn name(&self) -> &'static str {
        "plane-reduce"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (g, x) = (slice(s1, l1)?, slice(s2, l2)?);
        let nb = self.b_shape.elem_count();
        let d = l1.dims();
        let planes = d[0] * d[1];
        let len = g.len() / planes;
        let dot = self.dot;
        let out: Vec<f32> = (0..nb)
            .into_par_iter()
            .map(|k| {
                let mut s = 0f32;
                for p in (k..planes).step_by(nb) {
                    let gp = &g[p * len..(p + 1) * len];
                    if dot {
                        let xp = &x[p * len..(p + 1) * len];
                        s += gp.iter().zip(xp).map(|(a, b)| a * b).sum::<f32>();
                    } else {
                        s += gp.iter().sum::<f32>();
                    }
                }
                s
            })
            .collect();
        Ok((CpuStorage::F32(out), self.b_shape.clone()))
    }
}

/// `erf`, to within 1.5e-7 (Abramowitz and Stegun 7.1.26, in f64).
pub struct ErfOp;
struct ErfGrad;

fn erf(x: f32) -> f32 {
    let x = f64::from(x);
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    (if x < 0.0 { -y } else { y }) as f32
}

impl CustomOp1 for ErfOp {
    fn name(&self) -> &'static str {
        "erf"
    }

    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let x = slice(s, l)?;
        let y: Vec<f32> = x.par_iter().with_min_len(4096).map(|&v| erf(v)).collect();
        Ok((CpuStorage::F32(y), l.shape().clone()))
    }

    fn bwd(&self, x: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        Ok(Some(grad.contiguous()?.apply_op2_no_bwd(x, &ErfGrad)?))
    }
}

impl CustomOp2 for ErfGrad {
    fn name(&self) -> &'static str {
        "erf-grad"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (g, x) = (slice(s1, l1)?, slice(s2, l2)?);
        let c = 2.0 / std::f32::consts::PI.sqrt();
        let y: Vec<f32> = g
            .par_iter()
            .with_min_len(4096)
            .zip(x.par_iter())
            .map(|(&g, &x)| g * c * (-x * x).exp())
            .collect();
        Ok((CpuStorage::F32(y), l1.shape().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    fn t(v: Vec<f32>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s, &Device::Cpu).unwrap()
    }

    fn vals(x: &Tensor) -> Vec<f32> {
        x.flatten_all().unwrap().to_vec1().unwrap()
    }

    /// The depthwise op and its gradients against candle's own grouped convolution.
    #[test]
    fn depthwise_matches_candles_convolution() {
        let (n, c, h, w) = (2, 3, 7, 6);
        let x: Vec<f32> = (0..n * c * h * w)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) / 4.0)
            .collect();
        let k: Vec<f32> = (0..c * 9)
            .map(|i| ((i * 13 % 7) as f32 - 3.0) / 3.0)
            .collect();
        for (sh, sw) in [(1, 1), (2, 1), (2, 2)] {
            let g = Depthwise {
                kh: 3,
                kw: 3,
                sh,
                sw,
                pt: 1,
                pl: 1,
                h,
                w,
                ho: (h + 2 - 3) / sh + 1,
                wo: (w + 2 - 3) / sw + 1,
            };
            let xv = Var::from_tensor(&t(x.clone(), &[n, c, h, w])).unwrap();
            let kv = Var::from_tensor(&t(k.clone(), &[c, 1, 3, 3])).unwrap();
            let weights = t(
                (0..n * c * g.ho * g.wo).map(|i| (i % 5) as f32).collect(),
                &[n, c, g.ho, g.wo],
            );
            let ours = xv
                .as_tensor()
                .apply_op2(kv.as_tensor(), DepthwiseOp(g))
                .unwrap();
            let gr = ours
                .mul(&weights)
                .unwrap()
                .sum_all()
                .unwrap()
                .backward()
                .unwrap();
            let (dx, dk) = (vals(gr.get(&xv).unwrap()), vals(gr.get(&kv).unwrap()));
            // Reference: one dense convolution per channel, strided by hand.
            let mut want = Vec::new();
            let (mut wdx, mut wdk) = (vec![0f32; x.len()], vec![0f32; k.len()]);
            for b in 0..n {
                for ch in 0..c {
                    for oh in 0..g.ho {
                        for ow in 0..g.wo {
                            let mut s = 0.0;
                            for i in 0..3 {
                                for j in 0..3 {
                                    let (ih, iw) =
                                        ((oh * sh + i) as i64 - 1, (ow * sw + j) as i64 - 1);
                                    if ih < 0 || iw < 0 || ih >= h as i64 || iw >= w as i64 {
                                        continue;
                                    }
                                    let xi = ((b * c + ch) * h + ih as usize) * w + iw as usize;
                                    let ki = ch * 9 + i * 3 + j;
                                    s += x[xi] * k[ki];
                                    let wt = ((b * c + ch) * g.ho + oh) * g.wo + ow;
                                    let wv = (wt % 5) as f32;
                                    wdx[xi] += wv * k[ki];
                                    wdk[ki] += wv * x[xi];
                                }
                            }
                            want.push(s);
                        }
                    }
                }
            }
            let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(p, q)| (p - q).abs() < 1e-3);
            assert!(close(&vals(&ours), &want), "forward, strides {sh}x{sw}");
            assert!(close(&dx, &wdx), "input gradient, strides {sh}x{sw}");
            assert!(close(&dk, &wdk), "kernel gradient, strides {sh}x{sw}");
        }
    }

    #[test]
    fn plane_ops_and_erf_have_the_gradients_of_candles_own() {
        let x = Var::from_tensor(&t(
            (0..24).map(|i| i as f32 / 7.0 - 1.5).collect(),
            &[2, 3, 2, 2],
        ))
        .unwrap();
        let weights = t(
            (0..24).map(|i| (i % 4) as f32 - 1.0).collect(),
            &[2, 3, 2, 2],
        );
        for (mul, bshape) in [
            (false, [1, 3, 1, 1]),
            (true, [1, 3, 1, 1]),
            (true, [2, 3, 1, 1]),
        ] {
            let nb: usize = bshape.iter().product();
            let b = Var::from_tensor(&t((0..nb).map(|i| i as f32 / 3.0 + 0.5).collect(), &bshape))
                .unwrap();
            let ours = x
                .as_tensor()
                .apply_op2(b.as_tensor(), PlaneOp { mul })
                .unwrap();
            let theirs = if mul {
                x.as_tensor().broadcast_mul(b.as_tensor()).unwrap()
            } else {
                x.as_tensor().broadcast_add(b.as_tensor()).unwrap()
            };
            let g1 = ours
                .mul(&weights)
                .unwrap()
                .sum_all()
                .unwrap()
                .backward()
                .unwrap();
            let g2 = theirs
                .mul(&weights)
                .unwrap()
                .sum_all()
                .unwrap()
                .backward()
                .unwrap();
            assert_eq!(vals(&ours), vals(&theirs));
            for v in [&x, &b] {
                let (a, c) = (vals(g1.get(v).unwrap()), vals(g2.get(v).unwrap()));
                assert!(
                    a.iter().zip(&c).all(|(p, q)| (p - q).abs() < 1e-4),
                    "{a:?} vs {c:?}"
                );
            }
        }
        let e1 = x.as_tensor().apply_op1(ErfOp).unwrap();
        let e2 = x.as_tensor().erf().unwrap();
        let g1 = e1
            .mul(&weights)
            .unwrap()
            .sum_all()
            .unwrap()
            .backward()
            .unwrap();
        let g2 = e2
            .mul(&weights)
            .unwrap()
            .sum_all()
            .unwrap()
            .backward()
            .unwrap();
        let close = |a: Vec<f32>, b: Vec<f32>| a.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-5);
        assert!(close(vals(&e1), vals(&e2)));
        assert!(close(vals(g1.get(&x).unwrap()), vals(g2.get(&x).unwrap())));
    }
}
