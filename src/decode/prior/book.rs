//! Opening positions -> how often each move was played there, stored packed in
//! `models/prior.json` (positions keyed by their Zobrist hash).

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position};

/// Plies from the start that the book covers.
pub const BOOK_PLIES: usize = 16;
/// Games that must reach a position for the book to hold it.
#[cfg(any(test, feature = "internals"))]
const BOOK_MIN_GAMES: u32 = 8;
/// Legal moves assumed per position when weighing a book move against a random one.
const TYPICAL_MOVES: f32 = 30.0;

/// Positions of the opening -> moves played there and how often.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(from = "BookJson", into = "BookJson")]
pub struct Book {
    /// Zobrist hash of the position -> (packed move, games) and the position's total.
    positions: std::collections::HashMap<u64, (Vec<(u16, u32)>, u32)>,
}

/// The book as stored: one line, positions in hash order separated by `;`, each
/// `hash move:games move:games ...` (hash in hex, move packed by [`pack`]).
#[derive(Serialize, Deserialize)]
struct BookJson(String);

impl From<BookJson> for Book {
    fn from(j: BookJson) -> Book {
        let mut positions = std::collections::HashMap::new();
        for entry in j.0.split(';').filter(|e| !e.is_empty()) {
            let mut parts = entry.split(' ');
            let Some(key) = parts.next().and_then(|k| u64::from_str_radix(k, 16).ok()) else {
                continue;
            };
            let moves: Vec<(u16, u32)> = parts
                .filter_map(|p| {
                    let (m, n) = p.split_once(':')?;
                    Some((m.parse().ok()?, n.parse().ok()?))
                })
                .collect();
            let total = moves.iter().map(|m| m.1).sum();
            positions.insert(key, (moves, total));
        }
        Book { positions }
    }
}

impl From<Book> for BookJson {
    fn from(b: Book) -> BookJson {
        let mut v: Vec<(u64, Vec<(u16, u32)>)> = b
            .positions
            .into_iter()
            .map(|(k, (moves, _))| (k, moves))
            .collect();
        v.sort_unstable_by_key(|e| e.0);
        let text: Vec<String> = v
            .iter()
            .map(|(k, moves)| {
                let mut s = format!("{k:016x}");
                for (m, n) in moves {
                    s.push_str(&format!(" {m}:{n}"));
                }
                s
            })
            .collect();
        BookJson(text.join(";"))
    }
}

/// A move in 16 bits: origin, destination (the rook's square for castling), promotion.
fn pack(m: &Move) -> u16 {
    u16::from(m.from().map_or(0, u8::from))
        | (u16::from(u8::from(m.to())) << 6)
        | (m.promotion().map_or(0, |r| r as u16) << 12)
}

fn position_key(pos: &Chess) -> u64 {
    use shakmaty::zobrist::Zobrist64;
    u64::from(pos.zobrist_hash::<Zobrist64>(shakmaty::EnPassantMode::Legal))
}

impl Book {
    /// Positions held.
    #[cfg(any(test, feature = "internals"))]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when the book holds no position.
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Counts the first [`BOOK_PLIES`] plies of `games`.
    #[cfg(any(test, feature = "internals"))]
    pub(super) fn count<'a>(games: impl IntoIterator<Item = &'a [Move]>) -> Book {
        let mut seen: std::collections::HashMap<u64, std::collections::HashMap<u16, u32>> =
            std::collections::HashMap::new();
        for game in games {
            let mut pos = Chess::default();
            for m in game.iter().take(BOOK_PLIES) {
                *seen
                    .entry(position_key(&pos))
                    .or_default()
                    .entry(pack(m))
                    .or_default() += 1;
                pos.play_unchecked(*m);
            }
        }
        Book {
            positions: seen
                .into_iter()
                .filter_map(|(k, moves)| {
                    let total: u32 = moves.values().sum();
                    let mut moves: Vec<(u16, u32)> = moves.into_iter().collect();
                    moves.sort_unstable();
                    (total >= BOOK_MIN_GAMES).then_some((k, (moves, total)))
                })
                .collect(),
        }
    }

    /// Log-ratio (nats) of move `m`'s book frequency in `pos` to a random legal move's
    /// (one pseudo-count per move); `None` when the book does not hold `pos`.
    #[cfg(any(test, feature = "internals"))]
    pub fn log_ratio(&self, pos: &Chess, m: &Move) -> Option<f32> {
        self.entry(pos).map(|e| Book::ratio(e, m))
    }

    /// The book's moves in `pos` and their total, if it holds `pos`.
    pub(super) fn entry(&self, pos: &Chess) -> Option<&(Vec<(u16, u32)>, u32)> {
        let ply =
            2 * (pos.fullmoves().get() as usize - 1) + usize::from(pos.turn() == Color::Black);
        if self.positions.is_empty() || ply >= BOOK_PLIES {
            return None;
        }
        self.positions.get(&position_key(pos))
    }

    pub(super) fn ratio((moves, total): &(Vec<(u16, u32)>, u32), m: &Move) -> f32 {
        let key = pack(m);
        let played = moves.iter().find(|e| e.0 == key).map_or(0, |e| e.1);
        ((played as f32 + 1.0) / (*total as f32 + TYPICAL_MOVES) * TYPICAL_MOVES).ln()
    }
}
