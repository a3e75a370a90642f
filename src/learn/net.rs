//! The reader's ONNX graph run with candle tensors, so that its weights can be
//! trained: each node becomes candle operations, the trained initializers `Var`s.
//!
//! Only what the cell reader's graph uses is implemented; anything else is refused by
//! name. Grouped convolutions are written out (a depthwise 3x3 convolution as nine
//! shifted, per-channel weighted slices; a 1x1 convolution as a matrix product)
//! because candle's grouped convolution loops over the groups, one small convolution
//! each, which is slow for 160 groups.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use candle_core::{D, Device, Tensor, Var};

use super::onnx_proto::{self, FLOAT, GraphProto, INT64, NodeProto, TensorProto};
use super::ops::{Depthwise, DepthwiseOp, ErfOp, PlaneOp};

type Result<T> = std::result::Result<T, String>;

fn ce(e: candle_core::Error) -> String {
    e.to_string()
}

/// A value flowing through the graph: a float tensor, or a small integer array (the
/// shape arithmetic at the graph's input).
#[derive(Clone)]
enum Val {
    T(Tensor),
    I(Vec<i64>, Vec<usize>),
}

/// One trained initializer.
pub struct Param {
    pub name: String,
    pub var: Var,
    /// The base reader's values, for the pull toward them.
    pub base: Vec<f32>,
    /// Where its bytes sit in the ONNX file.
    pub raw: Range<usize>,
}

pub struct Net {
    nodes: Vec<NodeProto>,
    consts: HashMap<String, Val>,
    pub params: Vec<Param>,
    input: String,
    logits: String,
    /// The first node of the trained part.
    boundary: usize,
    /// Values that depend on the input.
    dynamic: HashSet<String>,
    /// Input-dependent values computed before `boundary` and read at or after it.
    crossing: Vec<String>,
}

fn tensor_val(t: &TensorProto, buf: &[u8]) -> Result<Val> {
    let dims: Vec<usize> = t.dims.iter().map(|&d| d.max(0) as usize).collect();
    match t.data_type {
        FLOAT => Ok(Val::T(
            Tensor::from_vec(t.floats(buf)?, dims, &Device::Cpu).map_err(ce)?,
        )),
        INT64 => Ok(Val::I(t.ints(buf)?, dims)),
        d => Err(format!("tensor {} has unsupported data type {d}", t.name)),
    }
}

impl Net {
    /// Builds the network from an ONNX file. Float initializers first used at or after
    /// the `frozen_convs`-th convolution (counting from 0 in graph order) are trained,
    /// except batch norms' (kept as they are: inference statistics) and scalars.
    pub fn new(buf: &[u8], frozen_convs: usize) -> Result<Net> {
        let GraphProto {
            nodes,
            initializers,
        } = onnx_proto::parse_model(buf)?;
        let last = nodes.last().ok_or("the graph has no nodes")?;
        if last.op_type != "LogSoftmax" || last.inputs.len() != 1 {
            return Err("the graph does not end in a LogSoftmax".into());
        }
        let logits = last.inputs[0].clone();
        let init_names: HashSet<&str> = initializers.iter().map(|t| t.name.as_str()).collect();
        let input = nodes
            .iter()
            .flat_map(|n| n.inputs.iter())
            .find(|i| {
                !i.is_empty() && !init_names.contains(i.as_str()) && {
                    !nodes.iter().any(|n| n.outputs.contains(i))
                }
            })
            .cloned()
            .ok_or("the graph has no input")?;
        let boundary = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.op_type == "Conv")
            .nth(frozen_convs)
            .map_or(nodes.len(), |(i, _)| i);
        let mut first_use: HashMap<&str, usize> = HashMap::new();
        let mut frozen: HashSet<&str> = HashSet::new();
        for (i, n) in nodes.iter().enumerate() {
            for (k, inp) in n.inputs.iter().enumerate() {
                first_use.entry(inp.as_str()).or_insert(i);
                if n.op_type == "BatchNormalization" && k > 0 {
                    frozen.insert(inp.as_str());
                }
                if !matches!(n.op_type.as_str(), "Conv" | "Add" | "MatMul" | "Mul") {
                    frozen.insert(inp.as_str());
                }
            }
        }
        let mut consts = HashMap::new();
        let mut params = Vec::new();
        for t in &initializers {
            let val = tensor_val(t, buf)?;
            let trained = t.data_type == FLOAT
                && t.numel() > 1
                && t.raw.is_some()
                && !frozen.contains(t.name.as_str())
                && first_use
                    .get(t.name.as_str())
                    .is_some_and(|&i| i >= boundary);
            match (val, trained) {
                (Val::T(tensor), true) => params.push(Param {
                    name: t.name.clone(),
                    base: tensor.flatten_all().and_then(|x| x.to_vec1()).map_err(ce)?,
                    var: Var::from_tensor(&tensor).map_err(ce)?,
                    raw: t.raw.clone().expect("checked"),
                }),
                (val, _) => {
                    consts.insert(t.name.clone(), val);
                }
            }
        }
        let mut dynamic: HashSet<String> = HashSet::from([input.clone()]);
        for n in &nodes {
            if n.inputs.iter().any(|i| dynamic.contains(i)) {
                dynamic.extend(n.outputs.iter().cloned());
            }
        }
        let produced_before: HashSet<&String> = nodes[..boundary]
            .iter()
            .flat_map(|n| n.outputs.iter())
            .chain(std::iter::once(&input))
            .collect();
        let mut crossing: Vec<String> = Vec::new();
        for n in &nodes[boundary..] {
            for i in &n.inputs {
                if dynamic.contains(i) && produced_before.contains(i) && !crossing.contains(i) {
                    crossing.push(i.clone());
                }
            }
        }
        Ok(Net {
            nodes,
            consts,
            params,
            input,
            logits,
            boundary,
            dynamic,
            crossing,
        })
    }

    /// The pre-softmax scores `[N, T, C]` for a batch of prepared inputs `[N, 1, H, W]`.
    pub fn logits(&self, image: &Tensor) -> Result<Tensor> {
        let mut vals = self.start();
        vals.insert(self.input.as_str(), Val::T(image.clone()));
        self.run(&mut vals, 0, self.nodes.len())?;
        match vals.remove(self.logits.as_str()) {
            Some(Val::T(t)) => Ok(t),
            _ => Err("the graph's scores were not computed".into()),
        }
    }

    /// The values the trained part of the network reads from the frozen part, for a
    /// batch of inputs: those that depend on the input, each `[N, ..]`, by name.
    pub fn frozen_part(&self, image: &Tensor) -> Result<Vec<(String, Tensor)>> {
        let mut vals = self.start();
        vals.insert(self.input.as_str(), Val::T(image.clone()));
        self.run(&mut vals, 0, self.boundary)?;
        self.crossing
            .iter()
            .map(|name| match vals.remove(name.as_str()) {
                Some(Val::T(t)) => Ok((name.clone(), t)),
                _ => Err(format!("{name} was not computed by the frozen layers")),
            })
            .collect()
    }

    /// [`Net::logits`] from the values [`Net::frozen_part`] gives (batched).
    pub fn logits_from(&self, frozen: &[(String, Tensor)]) -> Result<Tensor> {
        let mut vals = self.start();
        // Input-free values the frozen part computes (aliases of constants): cheap.
        let dummy =
            Tensor::zeros((1, 1, 1, 1), candle_core::DType::F32, &Device::Cpu).map_err(ce)?;
        vals.insert(self.input.as_str(), Val::T(dummy));
        self.run_static(&mut vals, 0, self.boundary)?;
        for (name, t) in frozen {
            vals.insert(name.as_str(), Val::T(t.clone()));
        }
        self.run(&mut vals, self.boundary, self.nodes.len())?;
        match vals.remove(self.logits.as_str()) {
            Some(Val::T(t)) => Ok(t),
            _ => Err("the graph's scores were not computed".into()),
        }
    }

    fn start(&self) -> HashMap<&str, Val> {
        self.params
            .iter()
            .map(|p| (p.name.as_str(), Val::T(p.var.as_tensor().clone())))
            .collect()
    }

    /// Runs nodes `from..to` that do not depend on the input.
    fn run_static<'a>(
        &'a self,
        vals: &mut HashMap<&'a str, Val>,
        from: usize,
        to: usize,
    ) -> Result<()> {
        for n in &self.nodes[from..to] {
            if !n.outputs.iter().any(|o| self.dynamic.contains(o)) {
                self.step(n, vals)?;
            }
        }
        Ok(())
    }

    fn run<'a>(&'a self, vals: &mut HashMap<&'a str, Val>, from: usize, to: usize) -> Result<()> {
        for n in &self.nodes[from..to] {
            if n.inputs.iter().any(|i| i == &self.logits) {
                break;
            }
            self.step(n, vals)?;
        }
        Ok(())
    }

    fn step<'a>(&'a self, n: &'a NodeProto, vals: &mut HashMap<&'a str, Val>) -> Result<()> {
        let get = |k: usize| -> Result<&Val> {
            let name = n.inputs.get(k).filter(|s| !s.is_empty());
            let name = name.ok_or_else(|| format!("{} lacks input {k}", n.op_type))?;
            vals.get(name.as_str())
                .or_else(|| self.consts.get(name))
                .ok_or_else(|| format!("{} input {name} is not computed yet", n.op_type))
        };
        let outs = eval(n, &get)?;
        for (name, v) in n.outputs.iter().zip(outs) {
            vals.insert(name.as_str(), v);
        }
        Ok(())
    }

    /// Whether the network has a frozen part worth computing once per cell.
    pub fn has_frozen_part(&self) -> bool {
        self.boundary > 0 && !self.crossing.is_empty()
    }
}

/// `log_softmax` over the last axis.
pub fn log_softmax(x: &Tensor) -> Result<Tensor> {
    let max = x.max_keepdim(D::Minus1).map_err(ce)?.detach();
    let shifted = x.broadcast_sub(&max).map_err(ce)?;
    let lse = shifted
        .exp()
        .and_then(|e| e.sum_keepdim(D::Minus1))
        .and_then(|s| s.log())
        .map_err(ce)?;
    shifted.broadcast_sub(&lse).map_err(ce)
}

fn ints_attr(n: &NodeProto, name: &str) -> Option<Vec<i64>> {
    n.attr(name).map(|a| a.ints.clone())
}

fn int_attr(n: &NodeProto, name: &str, default: i64) -> i64 {
    n.attr(name).and_then(|a| a.i).unwrap_or(default)
}

fn tensor(v: &Val, op: &str) -> Result<Tensor> {
    match v {
        Val::T(t) => Ok(t.clone()),
        Val::I(..) => Err(format!("{op} on integers is not supported")),
    }
}

fn ints(v: &Val, op: &str) -> Result<Vec<i64>> {
    match v {
        Val::I(x, _) => Ok(x.clone()),
        Val::T(_) => Err(format!("{op} needs integer values here")),
    }
}

fn axis(a: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    let a = if a < 0 { a + r } else { a };
    if (0..r).contains(&a) {
        Ok(a as usize)
    } else {
        Err(format!("axis {a} outside rank {rank}"))
    }
}

fn scalar(v: &Val) -> Result<f32> {
    match v {
        Val::T(t) => t
            .flatten_all()
            .and_then(|x| x.to_vec1::<f32>())
            .map_err(ce)?
            .first()
            .copied()
            .ok_or_else(|| "empty scalar".to_string()),
        Val::I(x, _) => x.first().map(|&x| x as f32).ok_or("empty scalar".into()),
    }
}

/// Elementwise integer arithmetic, with a one-element side broadcast.
fn int_binary(a: &Val, b: &Val, f: impl Fn(i64, i64) -> i64) -> Result<Val> {
    let (Val::I(x, xs), Val::I(y, ys)) = (a, b) else {
        return Err("mixed integer and float operands".into());
    };
    let n = x.len().max(y.len());
    if !(x.len() == n || x.len() == 1) || !(y.len() == n || y.len() == 1) {
        return Err("integer operands of different lengths".into());
    }
    let at = |v: &Vec<i64>, i: usize| if v.len() == 1 { v[0] } else { v[i] };
    let shape = if x.len() >= y.len() {
        xs.clone()
    } else {
        ys.clone()
    };
    Ok(Val::I(
        (0..n).map(|i| f(at(x, i), at(y, i))).collect(),
        shape,
    ))
}

/// Whether `b` is one value per channel (`[1, C, 1, ..]`) or per sample and channel
/// (`[N, C, 1, ..]`) of `x`: the cases [`PlaneOp`] computes.
fn per_plane(x: &Tensor, b: &Tensor) -> bool {
    let (xd, bd) = (x.dims(), b.dims());
    xd.len() >= 3
        && bd.len() == xd.len()
        && (bd[0] == 1 || bd[0] == xd[0])
        && bd[1] == xd[1]
        && bd[2..].iter().all(|&d| d == 1)
        && b.elem_count() > 1
}

fn plane_op(x: &Tensor, b: &Tensor, mul: bool) -> Result<Tensor> {
    let (x, b) = (x.contiguous().map_err(ce)?, b.contiguous().map_err(ce)?);
    x.apply_op2(&b, PlaneOp { mul }).map_err(ce)
}

fn float_binary(n: &NodeProto, a: &Val, b: &Val) -> Result<Val> {
    if let (Val::I(..), Val::I(..)) = (a, b) {
        return match n.op_type.as_str() {
            "Add" => int_binary(a, b, |x, y| x + y),
            "Mul" => int_binary(a, b, |x, y| x * y),
            "Sub" => int_binary(a, b, |x, y| x - y),
            "Equal" => int_binary(a, b, |x, y| i64::from(x == y)),
            op => Err(format!("{op} on integers is not supported")),
        };
    }
    let (x, y) = (tensor(a, &n.op_type)?, tensor(b, &n.op_type)?);
    let commutes = matches!(n.op_type.as_str(), "Add" | "Mul");
    if commutes {
        let mul = n.op_type == "Mul";
        if per_plane(&x, &y) {
            return Ok(Val::T(plane_op(&x, &y, mul)?));
        }
        if per_plane(&y, &x) {
            return Ok(Val::T(plane_op(&y, &x, mul)?));
        }
    }
    let r = match n.op_type.as_str() {
        "Add" => x.broadcast_add(&y),
        "Mul" => x.broadcast_mul(&y),
        "Sub" => x.broadcast_sub(&y),
        "Div" => x.broadcast_div(&y),
        op => return Err(format!("{op} on floats is not supported")),
    };
    Ok(Val::T(r.map_err(ce)?))
}

fn eval<'a>(n: &NodeProto, get: &dyn Fn(usize) -> Result<&'a Val>) -> Result<Vec<Val>> {
    let op = n.op_type.as_str();
    let one = |v: Val| Ok(vec![v]);
    match op {
        "Identity" => one(get(0)?.clone()),
        "Constant" => {
            let t = n.attr("value").and_then(|a| a.t.as_ref());
            let t = t.ok_or("Constant without a tensor value")?;
            // The constant's values are in the attribute's own tensor (typed fields or
            // raw bytes); a constant never refers to the file, so parse a copy.
            one(const_val(t)?)
        }
        "Add" | "Mul" | "Sub" | "Div" | "Equal" => one(float_binary(n, get(0)?, get(1)?)?),
        "Where" => {
            let c = ints(get(0)?, op)?;
            let (a, b) = (ints(get(1)?, op)?, ints(get(2)?, op)?);
            let len = c.len().max(a.len()).max(b.len());
            let at = |v: &Vec<i64>, i: usize| if v.len() == 1 { v[0] } else { v[i] };
            if [c.len(), a.len(), b.len()]
                .iter()
                .any(|&l| l != 1 && l != len)
            {
                return Err("Where operands of different lengths".into());
            }
            let v: Vec<i64> = (0..len)
                .map(|i| if at(&c, i) != 0 { at(&a, i) } else { at(&b, i) })
                .collect();
            one(Val::I(v, vec![len]))
        }
        "ConstantOfShape" => {
            let shape: Vec<usize> = ints(get(0)?, op)?.iter().map(|&d| d as usize).collect();
            let numel = shape.iter().product();
            match n.attr("value").and_then(|a| a.t.as_ref()) {
                Some(t) if t.data_type == INT64 => {
                    let v = *const_ints(t)?
                        .first()
                        .ok_or("empty ConstantOfShape value")?;
                    one(Val::I(vec![v; numel], shape))
                }
                t => {
                    let v = match t {
                        Some(t) => *const_floats(t)?.first().ok_or("empty value")?,
                        None => 0.0,
                    };
                    let t = Tensor::full(v, shape, &Device::Cpu).map_err(ce)?;
                    one(Val::T(t))
                }
            }
        }
        "Split" => {
            let ax = int_attr(n, "axis", 0);
            let sizes = match n.inputs.get(1).filter(|s| !s.is_empty()) {
                Some(_) => ints(get(1)?, op)?,
                None => ints_attr(n, "split").unwrap_or_default(),
            };
            match get(0)? {
                Val::I(x, shape) => {
                    if shape.len() != 1 {
                        return Err("Split of a multi-dimensional integer array".into());
                    }
                    let sizes = if sizes.is_empty() {
                        vec![x.len() as i64 / n.outputs.len() as i64; n.outputs.len()]
                    } else {
                        sizes
                    };
                    let mut at = 0usize;
                    let mut out = Vec::new();
                    for s in sizes {
                        let s = s as usize;
                        let part = x.get(at..at + s).ok_or("Split past the end")?.to_vec();
                        out.push(Val::I(part, vec![s]));
                        at += s;
                    }
                    Ok(out)
                }
                Val::T(t) => {
                    let ax = axis(ax, t.rank())?;
                    let dim = t.dim(ax).map_err(ce)?;
                    let sizes = if sizes.is_empty() {
                        vec![(dim / n.outputs.len()) as i64; n.outputs.len()]
                    } else {
                        sizes
                    };
                    let mut at = 0usize;
                    let mut out = Vec::new();
                    for s in sizes {
                        out.push(Val::T(t.narrow(ax, at, s as usize).map_err(ce)?));
                        at += s as usize;
                    }
                    Ok(out)
                }
            }
        }
        "Squeeze" | "Unsqueeze" => {
            let axes = match n.inputs.get(1).filter(|s| !s.is_empty()) {
                Some(_) => ints(get(1)?, op)?,
                None => ints_attr(n, "axes").unwrap_or_default(),
            };
            let dims: Vec<usize> = match get(0)? {
                Val::I(_, s) => s.clone(),
                Val::T(t) => t.dims().to_vec(),
            };
            let new: Vec<usize> = if op == "Squeeze" {
                let axes: Vec<usize> = if axes.is_empty() {
                    (0..dims.len()).filter(|&i| dims[i] == 1).collect()
                } else {
                    axes.iter()
                        .map(|&a| axis(a, dims.len()))
                        .collect::<Result<_>>()?
                };
                if axes.iter().any(|&a| dims[a] != 1) {
                    return Err("Squeeze of an axis longer than 1".into());
                }
                (0..dims.len())
                    .filter(|i| !axes.contains(i))
                    .map(|i| dims[i])
                    .collect()
            } else {
                let rank = dims.len() + axes.len();
                let axes: Vec<usize> =
                    axes.iter().map(|&a| axis(a, rank)).collect::<Result<_>>()?;
                let mut rest = dims.iter();
                (0..rank)
                    .map(|i| {
                        if axes.contains(&i) {
                            1
                        } else {
                            *rest.next().unwrap_or(&1)
                        }
                    })
                    .collect()
            };
            match get(0)? {
                Val::I(x, _) => one(Val::I(x.clone(), new)),
                Val::T(t) => one(Val::T(t.reshape(new).map_err(ce)?)),
            }
        }
        "Concat" => {
            let ax = int_attr(n, "axis", 0);
            let parts: Vec<&Val> = (0..n.inputs.len()).map(get).collect::<Result<_>>()?;
            if parts.iter().all(|p| matches!(p, Val::I(..))) {
                let mut v = Vec::new();
                for p in parts {
                    v.extend(ints(p, op)?);
                }
                let len = v.len();
                one(Val::I(v, vec![len]))
            } else {
                let ts: Vec<Tensor> = parts.iter().map(|p| tensor(p, op)).collect::<Result<_>>()?;
                let ax = axis(ax, ts[0].rank())?;
                one(Val::T(Tensor::cat(&ts, ax).map_err(ce)?))
            }
        }
        "Expand" => {
            let x = tensor(get(0)?, op)?;
            let shape = ints(get(1)?, op)?;
            let xd = x.dims().to_vec();
            let rank = xd.len().max(shape.len());
            let pad = |v: &[usize], i: usize| {
                let off = rank - v.len();
                if i < off { 1 } else { v[i - off] }
            };
            let sd: Vec<usize> = shape.iter().map(|&d| d.max(1) as usize).collect();
            let mut out = Vec::new();
            for i in 0..rank {
                let (a, b) = (pad(&xd, i), pad(&sd, i));
                if a != b && a != 1 && b != 1 {
                    return Err(format!("cannot expand {xd:?} to {shape:?}"));
                }
                out.push(a.max(b));
            }
            let t = x
                .reshape((0..rank).map(|i| pad(&xd, i)).collect::<Vec<_>>())
                .and_then(|t| t.broadcast_as(out))
                .and_then(|t| t.contiguous())
                .map_err(ce)?;
            one(Val::T(t))
        }
        "Conv" => {
            let x = tensor(get(0)?, op)?;
            let w = tensor(get(1)?, op)?;
            let b = match n.inputs.get(2).filter(|s| !s.is_empty()) {
                Some(_) => Some(tensor(get(2)?, op)?),
                None => None,
            };
            one(Val::T(conv(n, &x, &w, b.as_ref())?))
        }
        "Erf" => {
            let x = tensor(get(0)?, op)?.contiguous().map_err(ce)?;
            one(Val::T(x.apply_op1(ErfOp).map_err(ce)?))
        }
        "Relu" => one(Val::T(tensor(get(0)?, op)?.relu().map_err(ce)?)),
        "Clip" => {
            let x = tensor(get(0)?, op)?;
            let lo = match n.inputs.get(1).filter(|s| !s.is_empty()) {
                Some(_) => scalar(get(1)?)?,
                None => f32::MIN,
            };
            let hi = match n.inputs.get(2).filter(|s| !s.is_empty()) {
                Some(_) => scalar(get(2)?)?,
                None => f32::MAX,
            };
            one(Val::T(x.clamp(lo, hi).map_err(ce)?))
        }
        "ReduceMean" => {
            let x = tensor(get(0)?, op)?;
            let axes: Vec<usize> = ints_attr(n, "axes")
                .ok_or("ReduceMean without axes")?
                .iter()
                .map(|&a| axis(a, x.rank()))
                .collect::<Result<_>>()?;
            let mut y = x.mean_keepdim(axes.clone()).map_err(ce)?;
            if int_attr(n, "keepdims", 1) == 0 {
                let dims: Vec<usize> = (0..x.rank())
                    .filter(|i| !axes.contains(i))
                    .map(|i| x.dims()[i])
                    .collect();
                y = y.reshape(dims).map_err(ce)?;
            }
            one(Val::T(y))
        }
        "AveragePool" => {
            let x = tensor(get(0)?, op)?;
            let k = ints_attr(n, "kernel_shape").ok_or("AveragePool without kernel")?;
            let s = ints_attr(n, "strides").unwrap_or_else(|| vec![1, 1]);
            let pads = ints_attr(n, "pads").unwrap_or_else(|| vec![0; 4]);
            if k.len() != 2 || k != s || pads.iter().any(|&p| p != 0) {
                return Err("AveragePool other than non-overlapping 2-D windows".into());
            }
            let (nb, c, h, w) = x.dims4().map_err(ce)?;
            let (kh, kw) = (k[0] as usize, k[1] as usize);
            let (ho, wo) = (h / kh, w / kw);
            let y = x
                .narrow(2, 0, ho * kh)
                .and_then(|t| t.narrow(3, 0, wo * kw))
                .and_then(|t| t.reshape((nb, c, ho, kh, wo, kw)))
                .and_then(|t| t.mean(5))
                .and_then(|t| t.mean(3))
                .map_err(ce)?;
            one(Val::T(y))
        }
        "BatchNormalization" => {
            let x = tensor(get(0)?, op)?;
            let eps = n.attr("epsilon").and_then(|a| a.f).unwrap_or(1e-5);
            let c = x.dim(1).map_err(ce)?;
            let mut shape = vec![1usize; x.rank()];
            shape[1] = c;
            let p = |k: usize| -> Result<Tensor> {
                tensor(get(k)?, op)?.reshape(shape.clone()).map_err(ce)
            };
            let (scale, bias, mean, var) = (p(1)?, p(2)?, p(3)?, p(4)?);
            let inv = var
                .affine(1.0, f64::from(eps))
                .and_then(|v| v.sqrt())
                .and_then(|v| v.recip())
                .and_then(|v| v.mul(&scale))
                .map_err(ce)?;
            let y = x
                .broadcast_sub(&mean)
                .and_then(|t| t.broadcast_mul(&inv))
                .and_then(|t| t.broadcast_add(&bias))
                .map_err(ce)?;
            one(Val::T(y))
        }
        "Transpose" => {
            let x = tensor(get(0)?, op)?;
            let perm: Vec<usize> = match ints_attr(n, "perm") {
                Some(p) => p
                    .iter()
                    .map(|&a| axis(a, x.rank()))
                    .collect::<Result<_>>()?,
                None => (0..x.rank()).rev().collect(),
            };
            one(Val::T(x.permute(perm).map_err(ce)?))
        }
        "MatMul" => {
            let a = tensor(get(0)?, op)?.contiguous().map_err(ce)?;
            let b = tensor(get(1)?, op)?;
            one(Val::T(a.broadcast_matmul(&b).map_err(ce)?))
        }
        "LogSoftmax" => one(Val::T(log_softmax(&tensor(get(0)?, op)?)?)),
        _ => Err(format!(
            "the graph uses `{op}`, which the trainer does not implement"
        )),
    }
}

fn const_floats(t: &TensorProto) -> Result<Vec<f32>> {
    t.floats(&[])
}

fn const_ints(t: &TensorProto) -> Result<Vec<i64>> {
    t.ints(&[])
}

fn const_val(t: &TensorProto) -> Result<Val> {
    tensor_val(t, &[])
}

/// ONNX `Conv` for the cases the reader uses: 1x1 (a matrix product), depthwise (one
/// filter per channel), and dense with equal strides and padding (candle's conv2d).
fn conv(n: &NodeProto, x: &Tensor, w: &Tensor, b: Option<&Tensor>) -> Result<Tensor> {
    let group = int_attr(n, "group", 1) as usize;
    let strides = ints_attr(n, "strides").unwrap_or_else(|| vec![1, 1]);
    let pads = ints_attr(n, "pads").unwrap_or_else(|| vec![0; 4]);
    let dil = ints_attr(n, "dilations").unwrap_or_else(|| vec![1, 1]);
    if strides.len() != 2 || pads.len() != 4 || dil.iter().any(|&d| d != 1) {
        return Err("Conv other than 2-D without dilation".into());
    }
    let (nb, cin, h, wd) = x.dims4().map_err(ce)?;
    let (cout, cin_g, kh, kw) = w.dims4().map_err(ce)?;
    let (sh, sw) = (strides[0] as usize, strides[1] as usize);
    let p: Vec<usize> = pads.iter().map(|&p| p as usize).collect();
    let y = if group == 1 && kh == 1 && kw == 1 && sh == 1 && sw == 1 && p.iter().all(|&p| p == 0) {
        w.reshape((cout, cin))
            .and_then(|w| w.broadcast_matmul(&x.reshape((nb, cin, h * wd))?))
            .and_then(|y| y.reshape((nb, cout, h, wd)))
            .map_err(ce)?
    } else if group == cin && cin_g == 1 && cout == cin {
        depthwise(x, w, (kh, kw), (sh, sw), &p)?
    } else if group == 1 && sh == sw && p.iter().all(|&q| q == p[0]) && cin_g == cin {
        x.conv2d(w, p[0], sh, 1, 1).map_err(ce)?
    } else {
        return Err(format!(
            "Conv with group {group}, kernel {kh}x{kw}, strides {strides:?}, pads {pads:?} is not supported"
        ));
    };
    match b {
        Some(b) => plane_op(&y, &b.reshape((1, cout, 1, 1)).map_err(ce)?, false),
        None => Ok(y),
    }
}

fn depthwise(
    x: &Tensor,
    w: &Tensor,
    (kh, kw): (usize, usize),
    (sh, sw): (usize, usize),
    p: &[usize],
) -> Result<Tensor> {
    let (_, _, h, wd) = x.dims4().map_err(ce)?;
    let (hp, wp) = (h + p[0] + p[2], wd + p[1] + p[3]);
    if hp < kh || wp < kw {
        return Err("Conv input smaller than its kernel".into());
    }
    let g = Depthwise {
        kh,
        kw,
        sh,
        sw,
        pt: p[0],
        pl: p[1],
        h,
        w: wd,
        ho: (hp - kh) / sh + 1,
        wo: (wp - kw) / sw + 1,
    };
    let (x, w) = (x.contiguous().map_err(ce)?, w.contiguous().map_err(ce)?);
    x.apply_op2(&w, DepthwiseOp(g)).map_err(ce)
}
