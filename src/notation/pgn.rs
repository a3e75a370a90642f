//! PGN text <-> games: reads the games of a PGN file (tags and SAN move text) into legal
//! moves, and writes a game as PGN with the Seven Tag Roster.

use shakmaty::{Chess, Move, Position, san::SanPlus};

/// One game of a PGN file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The moves from the initial position.
    pub moves: Vec<Move>,
}

impl PgnGame {
    /// The value of tag `name`, if present.
    #[cfg(any(test, feature = "internals"))]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A game of a PGN file whose move text does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {game}: ply {ply}: cannot play `{san}`")]
pub struct PgnError {
    /// Index of the game in the file (0-based).
    pub game: usize,
    /// Index of the failing ply (0 = White's first move).
    pub ply: usize,
    pub san: String,
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (key, value) = inner.split_once(' ')?;
    let value = value.trim();
    let value = value.strip_prefix('"').unwrap_or(value);
    let value = value.strip_suffix('"').unwrap_or(value);
    let value = value.replace("\\\"", "\"").replace("\\\\", "\\");
    Some((key.to_string(), value))
}

fn movetext_to_moves(text: &str, game: usize) -> Result<Vec<Move>, PgnError> {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut depth = 0usize; // inside `{...}` comments or `(...)` variations
    for raw in text.split_whitespace() {
        let mut word = raw;
        if depth > 0 || word.starts_with('{') || word.starts_with('(') || word.starts_with(';') {
            depth += word.matches(['{', '(']).count();
            depth = depth.saturating_sub(word.matches(['}', ')']).count());
            continue;
        }
        if word.starts_with('$') || matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
            continue;
        }
        if word.starts_with(|c: char| c.is_ascii_digit()) && !word.starts_with('0') {
            word = word
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start_matches('.');
        }
        let word = word.trim_end_matches(['!', '?']);
        if word.is_empty() {
            continue;
        }
        let m = SanPlus::from_ascii(word.as_bytes())
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok())
            .ok_or_else(|| PgnError {
                game,
                ply: moves.len(),
                san: word.to_string(),
            })?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(moves)
}

/// Reads every game of a PGN text, in order; one result per game.
pub fn read_pgn(text: &str) -> Vec<Result<PgnGame, PgnError>> {
    let mut out = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let flush = |tags: &mut Vec<(String, String)>, movetext: &mut String, out: &mut Vec<_>| {
        if tags.is_empty() && movetext.trim().is_empty() {
            return;
        }
        let game = out.len();
        out.push(movetext_to_moves(movetext, game).map(|moves| PgnGame {
            tags: std::mem::take(tags),
            moves,
        }));
        tags.clear();
        movetext.clear();
    };
    for line in text.lines() {
        if line.trim_start().starts_with('[') {
            if !movetext.trim().is_empty() {
                flush(&mut tags, &mut movetext, &mut out);
            }
            if let Some(tag) = parse_tag(line) {
                tags.push(tag);
            }
        } else {
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    flush(&mut tags, &mut movetext, &mut out);
    out
}

/// The `.pgn` files directly in `dir`, in name order.
///
/// # Errors
/// When the folder cannot be listed.
#[cfg(any(test, feature = "internals"))]
pub fn pgn_files(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|p| p.extension().is_some_and(|e| e == "pgn"));
    paths.sort();
    Ok(paths)
}

/// Of the games of each PGN file, the first and then every this-many-th one is held
/// out: the move prior never counts it (`examples/train_prior`), the decoder's
/// simulations test on it, and `training/corpus.py` puts it in its validation split.
#[cfg(any(test, feature = "internals"))]
pub const HELD_OUT_EVERY: usize = 20;

/// The games of every `*.pgn` file of `dir` (in file-name order) that replay, as
/// (counted, held out) by [`HELD_OUT_EVERY`] (a game's place in its file counts the
/// games that do not replay too).
///
/// # Errors
/// When the folder or one of its files cannot be read.
#[cfg(any(test, feature = "internals"))]
pub fn read_pgn_dir_split(dir: &std::path::Path) -> std::io::Result<(Vec<PgnGame>, Vec<PgnGame>)> {
    let (mut counted, mut held_out) = (Vec::new(), Vec::new());
    for p in pgn_files(dir)? {
        let text = std::fs::read_to_string(&p)?;
        for (i, g) in read_pgn(&text).into_iter().enumerate() {
            if let Ok(g) = g {
                if i % HELD_OUT_EVERY == 0 {
                    held_out.push(g);
                } else {
                    counted.push(g);
                }
            }
        }
    }
    Ok((counted, held_out))
}

/// Reads every `*.pgn` file of `dir` (in file-name order) and returns the games that
/// replay; games that do not are dropped.
///
/// # Errors
/// When the folder or one of its files cannot be read.
#[cfg(any(test, feature = "internals"))]
pub fn read_pgn_dir(dir: &std::path::Path) -> std::io::Result<Vec<PgnGame>> {
    let mut games = Vec::new();
    for p in pgn_files(dir)? {
        let text = std::fs::read_to_string(&p)?;
        games.extend(read_pgn(&text).into_iter().filter_map(Result::ok));
    }
    Ok(games)
}

/// The Seven Tag Roster, in PGN order.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// A PGN tag value with `\` and `"` escaped.
pub fn escape_tag(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Appends the Seven Tag Roster: values from `tags`, `?` where absent (`????.??.??`
/// for the date), `Result` from `result`.
pub fn write_roster(out: &mut String, tags: &[(&str, &str)], result: &str) {
    for key in ROSTER {
        let value = match key {
            "Result" => result,
            _ => tags
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| *v)
                .unwrap_or(if key == "Date" { "????.??.??" } else { "?" }),
        };
        out.push_str(&format!("[{key} \"{}\"]\n", escape_tag(value)));
    }
}

/// Appends the tags of `tags` that are neither roster tags nor in `skip`, in order.
pub fn write_other_tags(out: &mut String, tags: &[(&str, &str)], skip: &[&str]) {
    for (key, value) in tags {
        if !ROSTER.contains(key) && !skip.contains(key) {
            out.push_str(&format!("[{key} \"{}\"]\n", escape_tag(value)));
        }
    }
}

/// Writes a game as PGN: the Seven Tag Roster (values from `tags`, `?` where absent,
/// `????.??.??` for the date), then SAN move text wrapped at 79 columns, then `result`.
///
/// # Panics
/// If a move is not legal in the position reached.
pub fn write_pgn(tags: &[(&str, &str)], moves: &[Move], result: &str) -> String {
    let mut out = String::new();
    write_roster(&mut out, tags, result);
    write_other_tags(&mut out, tags, &[]);
    out.push('\n');
    let mut pos = Chess::default();
    let mut words: Vec<String> = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    for (i, &m) in moves.iter().enumerate() {
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        if i % 2 == 0 {
            words.push(format!("{}. {san}", i / 2 + 1));
        } else {
            words.push(san.to_string());
        }
    }
    words.push(result.to_string());
    wrap_movetext(&words, &mut out);
    out.push('\n');
    out
}

/// Appends PGN movetext tokens to `out`, joined by spaces, in lines of at most 79
/// columns (a longer single token gets a line of its own); no final newline.
pub fn wrap_movetext<S: AsRef<str>>(tokens: &[S], out: &mut String) {
    let mut line = String::new();
    for t in tokens {
        let t = t.as_ref();
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    out.push_str(&line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetext_lines_stay_within_79_columns() {
        let tokens: Vec<String> = (1..=40).map(|i| format!("{i}. Nf3 Nf6")).collect();
        let mut out = String::new();
        wrap_movetext(&tokens, &mut out);
        assert!(out.lines().count() > 1);
        assert!(out.lines().all(|l| l.len() <= 79), "{out}");
        assert_eq!(out.split_whitespace().count(), 120);
        let mut long = String::new();
        wrap_movetext(&["1.", &"{".repeat(100), "e4"], &mut long);
        assert_eq!(
            long.lines().count(),
            3,
            "a long token has a line of its own"
        );
    }

    #[test]
    fn writes_then_reads_back() {
        let text = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6";
        let games = read_pgn(text);
        let moves = games[0].as_ref().unwrap().moves.clone();
        assert_eq!(moves.len(), 10);
        let pgn = write_pgn(&[("White", "Tal, \"M\"")], &moves, "*");
        assert!(pgn.starts_with("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]"));
        assert!(pgn.contains("[White \"Tal, \\\"M\\\"\"]"));
        let again = read_pgn(&pgn);
        assert_eq!(again.len(), 1);
        let game = again[0].as_ref().unwrap();
        assert_eq!(game.moves, moves);
        assert_eq!(game.tag("Result"), Some("*"));
    }

    #[test]
    fn reports_the_failing_ply() {
        let games = read_pgn("[Event \"x\"]\n\n1. e4 e4 *\n");
        assert_eq!(games[0].as_ref().unwrap_err().ply, 1);
    }
}
