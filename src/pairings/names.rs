//! A sheet's file name -> the round and board it records: `r3b12` (`r3b12_w`,
//! `r3b12-2`, `open_R3B12`, `r3_b12`) or `3-12` (`3-12_w`).

/// Round and board named by a file stem, if it names them.
pub fn round_board(stem: &str) -> Option<(u32, u32)> {
    let s = stem.to_lowercase();
    let b = s.as_bytes();
    // `r<round>[_-]?b<board>`, not inside a word.
    for i in 0..b.len() {
        if b[i] != b'r' || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            continue;
        }
        let (round, j) = digits(b, i + 1);
        let Some(round) = round else { continue };
        let j = if j < b.len() && matches!(b[j], b'_' | b'-') {
            j + 1
        } else {
            j
        };
        if j < b.len() && b[j] == b'b' {
            let (board, k) = digits(b, j + 1);
            if let Some(board) = board
                && (k == b.len() || !b[k].is_ascii_digit())
            {
                return Some((round, board));
            }
        }
    }
    // `<round>-<board>` at the start, then the end or a suffix after `_` or `-`.
    let (round, j) = digits(b, 0);
    if let Some(round) = round
        && j < b.len()
        && b[j] == b'-'
    {
        let (board, k) = digits(b, j + 1);
        if let Some(board) = board
            && (k == b.len() || matches!(b[k], b'_' | b'-'))
        {
            return Some((round, board));
        }
    }
    None
}

/// The number of the ASCII digits at `from` (none: `None`) and where they end.
fn digits(b: &[u8], from: usize) -> (Option<u32>, usize) {
    let mut end = from;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    let n = std::str::from_utf8(&b[from..end])
        .ok()
        .and_then(|s| s.parse().ok());
    (n, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_name_round_and_board() {
        let cases = [
            ("r3b12", Some((3, 12))),
            ("r3b12_w", Some((3, 12))),
            ("r3b12-2", Some((3, 12))),
            ("R3B12_black", Some((3, 12))),
            ("open_r10b1", Some((10, 1))),
            ("r3_b12", Some((3, 12))),
            ("3-12", Some((3, 12))),
            ("3-12_w", Some((3, 12))),
            ("hcs_053_1", None),
            ("scan0001", None),
            ("brb3", None),
            ("3-12x", None),
        ];
        for (stem, want) in cases {
            assert_eq!(round_board(stem), want, "{stem}");
        }
    }
}
