//! A small reader of the ONNX protobuf: the graph's nodes and initializers, with the
//! byte range of each initializer's `raw_data` so that new weights can be written
//! over the old ones in place and every other byte of the file stays as it was.
//!
//! Field numbers from onnx.proto: ModelProto 7 = graph; GraphProto 1 = node,
//! 5 = initializer; NodeProto 1 = input, 2 = output, 3 = name, 4 = op_type,
//! 5 = attribute; AttributeProto 1 = name, 2 = f, 3 = i, 4 = s, 5 = t, 7 = floats,
//! 8 = ints; TensorProto 1 = dims, 2 = data_type, 4 = float_data, 7 = int64_data,
//! 8 = name, 9 = raw_data.

use std::ops::Range;

/// ONNX TensorProto data types this reader understands.
pub const FLOAT: i32 = 1;
pub const INT64: i32 = 7;

#[derive(Clone, Debug)]
pub struct TensorProto {
    pub name: String,
    pub dims: Vec<i64>,
    pub data_type: i32,
    /// Where `raw_data` sits in the whole file (absent when the values are in the
    /// typed fields).
    pub raw: Option<Range<usize>>,
    pub float_data: Vec<f32>,
    pub int64_data: Vec<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct Attribute {
    pub name: String,
    pub f: Option<f32>,
    pub i: Option<i64>,
    pub ints: Vec<i64>,
    pub floats: Vec<f32>,
    pub t: Option<TensorProto>,
}

#[derive(Clone, Debug)]
pub struct NodeProto {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub op_type: String,
    pub attributes: Vec<Attribute>,
}

impl NodeProto {
    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

#[derive(Clone, Debug)]
pub struct GraphProto {
    pub nodes: Vec<NodeProto>,
    pub initializers: Vec<TensorProto>,
}

/// One field of a message: number and payload (byte ranges are absolute offsets into
/// the whole buffer).
enum Value {
    Varint(u64),
    Fixed64,
    Bytes(Range<usize>),
    Fixed32(u32),
}

struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
}

fn varint(buf: &[u8], pos: &mut usize, end: usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        if *pos >= end {
            return Err("truncated varint".into());
        }
        let b = buf[*pos];
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("varint longer than 10 bytes".into())
}

impl<'a> Fields<'a> {
    fn new(buf: &'a [u8], range: Range<usize>) -> Self {
        Fields {
            buf,
            pos: range.start,
            end: range.end,
        }
    }

    fn next_field(&mut self) -> Result<Option<(u32, Value)>, String> {
        if self.pos >= self.end {
            return Ok(None);
        }
        let key = varint(self.buf, &mut self.pos, self.end)?;
        let field = (key >> 3) as u32;
        let value = match key & 7 {
            0 => Value::Varint(varint(self.buf, &mut self.pos, self.end)?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let len = varint(self.buf, &mut self.pos, self.end)? as usize;
                Value::Bytes(self.take(len)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes(self.buf[b].try_into().expect("4 bytes")))
            }
            w => return Err(format!("unsupported protobuf wire type {w}")),
        };
        Ok(Some((field, value)))
    }

    fn take(&mut self, len: usize) -> Result<Range<usize>, String> {
        let start = self.pos;
        let end = start.checked_add(len).filter(|&e| e <= self.end);
        let end = end.ok_or("field runs past the end of its message")?;
        self.pos = end;
        Ok(start..end)
    }
}

fn string(buf: &[u8], r: Range<usize>) -> Result<String, String> {
    String::from_utf8(buf[r].to_vec()).map_err(|_| "a name is not UTF-8".to_string())
}

/// Repeated integers, packed or one per field.
fn push_ints(buf: &[u8], v: Value, out: &mut Vec<i64>) -> Result<(), String> {
    match v {
        Value::Varint(x) => out.push(x as i64),
        Value::Bytes(r) => {
            let mut p = r.start;
            while p < r.end {
                out.push(varint(buf, &mut p, r.end)? as i64);
            }
        }
        _ => return Err("integer field with a bad wire type".into()),
    }
    Ok(())
}

fn push_floats(buf: &[u8], v: Value, out: &mut Vec<f32>) -> Result<(), String> {
    match v {
        Value::Fixed32(x) => out.push(f32::from_bits(x)),
        Value::Bytes(r) => {
            if r.len() % 4 != 0 {
                return Err("packed floats of a length not a multiple of 4".into());
            }
            out.extend(
                buf[r]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))),
            );
        }
        _ => return Err("float field with a bad wire type".into()),
    }
    Ok(())
}

fn tensor(buf: &[u8], range: Range<usize>) -> Result<TensorProto, String> {
    let mut t = TensorProto {
        name: String::new(),
        dims: Vec::new(),
        data_type: 0,
        raw: None,
        float_data: Vec::new(),
        int64_data: Vec::new(),
    };
    let mut f = Fields::new(buf, range);
    while let Some((num, v)) = f.next_field()? {
        match (num, v) {
            (1, v) => push_ints(buf, v, &mut t.dims)?,
            (2, Value::Varint(x)) => t.data_type = x as i32,
            (4, v) => push_floats(buf, v, &mut t.float_data)?,
            (7, v) => push_ints(buf, v, &mut t.int64_data)?,
            (8, Value::Bytes(r)) => t.name = string(buf, r)?,
            (9, Value::Bytes(r)) => t.raw = Some(r),
            (13 | 14, _) => return Err("tensors stored outside the file are not supported".into()),
            _ => {}
        }
    }
    Ok(t)
}

fn attribute(buf: &[u8], range: Range<usize>) -> Result<Attribute, String> {
    let mut a = Attribute::default();
    let mut f = Fields::new(buf, range);
    while let Some((num, v)) = f.next_field()? {
        match (num, v) {
            (1, Value::Bytes(r)) => a.name = string(buf, r)?,
            (2, Value::Fixed32(x)) => a.f = Some(f32::from_bits(x)),
            (3, Value::Varint(x)) => a.i = Some(x as i64),
            (5, Value::Bytes(r)) => {
                // An attribute's tensor is a constant of the graph: its values are moved
                // into the typed fields so that it is read without the file.
                let mut t = tensor(buf, r)?;
                if t.raw.is_some() {
                    match t.data_type {
                        FLOAT => t.float_data = t.floats(buf)?,
                        INT64 => t.int64_data = t.ints(buf)?,
                        d => return Err(format!("constant of unsupported data type {d}")),
                    }
                    t.raw = None;
                }
                a.t = Some(t);
            }
            (7, v) => push_floats(buf, v, &mut a.floats)?,
            (8, v) => push_ints(buf, v, &mut a.ints)?,
            _ => {}
        }
    }
    Ok(a)
}

fn node(buf: &[u8], range: Range<usize>) -> Result<NodeProto, String> {
    let mut n = NodeProto {
        inputs: Vec::new(),
        outputs: Vec::new(),
        op_type: String::new(),
        attributes: Vec::new(),
    };
    let mut f = Fields::new(buf, range);
    while let Some((num, v)) = f.next_field()? {
        match (num, v) {
            (1, Value::Bytes(r)) => n.inputs.push(string(buf, r)?),
            (2, Value::Bytes(r)) => n.outputs.push(string(buf, r)?),
            (4, Value::Bytes(r)) => n.op_type = string(buf, r)?,
            (5, Value::Bytes(r)) => n.attributes.push(attribute(buf, r)?),
            _ => {}
        }
    }
    Ok(n)
}

/// Reads the graph of an ONNX model file.
pub fn parse_model(buf: &[u8]) -> Result<GraphProto, String> {
    let mut f = Fields::new(buf, 0..buf.len());
    let mut graph = None;
    while let Some((num, v)) = f.next_field()? {
        if let (7, Value::Bytes(r)) = (num, v) {
            graph = Some(r);
        }
    }
    let graph = graph.ok_or("no graph in the model file")?;
    let mut g = GraphProto {
        nodes: Vec::new(),
        initializers: Vec::new(),
    };
    let mut f = Fields::new(buf, graph);
    while let Some((num, v)) = f.next_field()? {
        match (num, v) {
            (1, Value::Bytes(r)) => g.nodes.push(node(buf, r)?),
            (5, Value::Bytes(r)) => g.initializers.push(tensor(buf, r)?),
            _ => {}
        }
    }
    Ok(g)
}

impl TensorProto {
    pub fn numel(&self) -> usize {
        self.dims.iter().map(|&d| d.max(0) as usize).product()
    }

    /// The values as f32 (float tensors only).
    pub fn floats(&self, buf: &[u8]) -> Result<Vec<f32>, String> {
        if self.data_type != FLOAT {
            return Err(format!("tensor {} is not float", self.name));
        }
        let v: Vec<f32> = match &self.raw {
            Some(r) => buf[r.clone()]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
            None => self.float_data.clone(),
        };
        if v.len() != self.numel() {
            return Err(format!(
                "tensor {} has {} values for its shape",
                self.name,
                v.len()
            ));
        }
        Ok(v)
    }

    /// The values as i64 (int64 tensors only).
    pub fn ints(&self, buf: &[u8]) -> Result<Vec<i64>, String> {
        if self.data_type != INT64 {
            return Err(format!("tensor {} is not int64", self.name));
        }
        let v: Vec<i64> = match &self.raw {
            Some(r) => buf[r.clone()]
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
            None => self.int64_data.clone(),
        };
        if v.len() != self.numel() {
            return Err(format!(
                "tensor {} has {} values for its shape",
                self.name,
                v.len()
            ));
        }
        Ok(v)
    }
}

/// A copy of the file with the given float initializers' `raw_data` replaced (same
/// length, so no length prefix changes and every other byte stays).
pub fn replace_raw(buf: &[u8], new: &[(Range<usize>, Vec<f32>)]) -> Result<Vec<u8>, String> {
    let mut out = buf.to_vec();
    for (r, vals) in new {
        if vals.len() * 4 != r.len() {
            return Err("new weights of a different size".into());
        }
        for (dst, v) in out[r.clone()].chunks_exact_mut(4).zip(vals) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }
    Ok(out)
}
