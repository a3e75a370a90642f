//! Game records -> a small learned move prior: how much likelier a legal move is to
//! be the one played than a legal move picked at random, from a few dozen binary
//! features of the move (piece, capture and what it takes, check, castling,
//! promotion, development, retreat, game phase).
//!
//! Each feature's weight is the log-ratio of how often it was played to how often a
//! uniformly random legal move would have had it in the same positions (counted over
//! real games, one pseudo-count each). In the opening an opening book adds the
//! log-ratio of how often the move was played in that very position (positions of
//! the first 16 plies that at least 8 counted games reached) to a random move's
//! share. A move's prior is `scale` times (the sum of its features' weights plus
//! `book_scale` times its book log-ratio). The weights and the book (2348 positions,
//! 88 KB) are shipped as `models/prior.json`, made by
//! `cargo run --release --example train_prior` (book scale 1.0, chosen on the HCS
//! training pages: 86.1 / 86.2 / 86.1% of cells right at 0.5 / 1.0 / 2.0).

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position, Rank, Role};

use super::MovePrior;

/// Names of the features, in weight order.
pub const FEATURES: [&str; 32] = [
    "pawn",
    "knight",
    "bishop",
    "rook",
    "queen",
    "king",
    "castle",
    "capture",
    "takes-pawn",
    "takes-minor",
    "takes-rook",
    "takes-queen",
    "pawn-takes",
    "check",
    "promotion",
    "double-push",
    "retreat",
    "develops",
    "edge-pawn",
    "king-in-opening",
    "queen-in-opening",
    "opening-pawn",
    "opening-knight",
    "opening-bishop",
    "opening-rook",
    "endgame-pawn",
    "endgame-king",
    "endgame-rook",
    "in-check-king",
    "center-pawn",
    "rook-to-open-file",
    "quiet-minor",
];

fn role_index(r: Role) -> usize {
    match r {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

/// The features of legal move `m` in `pos` (indices into [`FEATURES`], ascending).
pub fn features(pos: &Chess, m: &Move) -> Vec<usize> {
    let mask = feature_mask(pos, m);
    (0..FEATURES.len())
        .filter(|i| mask & (1 << i) != 0)
        .collect()
}

/// What the features of a position's moves share, worked out once per position:
/// the squares from which each piece would check the enemy king, the pieces whose
/// leaving a line uncovers a check, and the game phase.
pub struct MoveContext {
    turn: Color,
    king: Option<shakmaty::Square>,
    /// By role index: squares from which a piece of ours of that role attacks the
    /// enemy king (present occupancy).
    check_squares: [shakmaty::Bitboard; 6],
    /// Our pieces alone between one of our sliders and the enemy king.
    discoverers: shakmaty::Bitboard,
    home: Rank,
    /// By role index: the features that follow from the piece alone in this position
    /// (its role, and opening, endgame and in-check features).
    role_bits: [u32; 6],
    pawns: shakmaty::Bitboard,
}

impl MoveContext {
    pub fn new(pos: &Chess) -> MoveContext {
        use shakmaty::{Bitboard, Piece, attacks};
        let board = pos.board();
        let turn = pos.turn();
        let king = board.king_of(!turn);
        let occupied = board.occupied();
        let mut check_squares = [Bitboard::EMPTY; 6];
        let mut discoverers = Bitboard::EMPTY;
        if let Some(k) = king {
            // A piece of ours attacks the king from the squares the king would
            // attack as that piece of theirs.
            for role in Role::ALL {
                let theirs = Piece { color: !turn, role };
                check_squares[role_index(role)] = attacks::attacks(k, theirs, occupied);
            }
            let ours = board.by_color(turn);
            let snipers = (attacks::rook_attacks(k, Bitboard::EMPTY) & board.rooks_and_queens()
                | attacks::bishop_attacks(k, Bitboard::EMPTY) & board.bishops_and_queens())
                & ours;
            for sniper in snipers {
                let between = attacks::between(sniper, k) & occupied;
                if between.count() == 1 && (between & ours).any() {
                    discoverers |= between;
                }
            }
        }
        let opening = pos.fullmoves().get() <= 10;
        let endgame = occupied.count() <= 12;
        let in_check = pos.is_check();
        let mut role_bits = [0u32; 6];
        for role in Role::ALL {
            let mut f = 1u32 << role_index(role);
            if opening {
                f |= 1
                    << match role {
                        Role::King => 19,
                        Role::Queen => 20,
                        Role::Pawn => 21,
                        Role::Knight => 22,
                        Role::Bishop => 23,
                        Role::Rook => 24,
                    };
            }
            if endgame {
                match role {
                    Role::Pawn => f |= 1 << 25,
                    Role::King => f |= 1 << 26,
                    Role::Rook => f |= 1 << 27,
                    _ => {}
                }
            }
            if role == Role::King && in_check {
                f |= 1 << 28;
            }
            role_bits[role_index(role)] = f;
        }
        MoveContext {
            turn,
            king,
            check_squares,
            discoverers,
            home: if turn == Color::White {
                Rank::First
            } else {
                Rank::Eighth
            },
            role_bits,
            pawns: board.pawns(),
        }
    }

    /// Whether legal move `m` of this position gives check.
    pub fn gives_check(&self, pos: &Chess, m: &Move) -> bool {
        let (Some(from), Some(king)) = (m.from(), self.king) else {
            return false;
        };
        if m.is_castle() || m.is_en_passant() || m.is_promotion() {
            return gives_check(pos, m);
        }
        // (A slider leaving a square between its new square and the king cannot
        // matter: it would have been checking the king already.)
        self.check_squares[role_index(m.role())].contains(m.to())
            || (self.discoverers.contains(from) && !shakmaty::attacks::aligned(from, m.to(), king))
    }

    /// The features of legal move `m` of this position as bits (bit `i` =
    /// [`FEATURES`]`[i]`).
    pub fn feature_mask(&self, pos: &Chess, m: &Move) -> u32 {
        if m.is_castle() {
            return 1 << 6;
        }
        let role = m.role();
        let mut f = self.role_bits[role_index(role)];
        let mut push = |i: usize| f |= 1 << i;
        let turn = self.turn;
        let from = m.from().expect("chess move");
        let to = m.to();
        if let Some(taken) = m.capture() {
            push(7);
            push(match taken {
                Role::Pawn => 8,
                Role::Knight | Role::Bishop => 9,
                Role::Rook => 10,
                _ => 11,
            });
            if role == Role::Pawn {
                push(12);
            }
        }
        if m.promotion().is_some() {
            push(14);
        }
        let forward = |r: Rank| {
            if turn == Color::White {
                u32::from(r)
            } else {
                7 - u32::from(r)
            }
        };
        if role == Role::Pawn && from.rank().distance(to.rank()) == 2 {
            push(15);
        }
        if role != Role::Pawn && forward(to.rank()) < forward(from.rank()) {
            push(16);
        }
        let home = self.home;
        if matches!(role, Role::Knight | Role::Bishop) && from.rank() == home {
            push(17);
        }
        if role == Role::Pawn && matches!(u32::from(from.file()), 0 | 7) {
            push(18);
        }
        if role == Role::Pawn && matches!(u32::from(from.file()), 3 | 4) {
            push(29);
        }
        if role == Role::Rook && (self.pawns & shakmaty::Bitboard::from_file(to.file())).is_empty()
        {
            push(30);
        }
        if matches!(role, Role::Knight | Role::Bishop) && !m.is_capture() && from.rank() != home {
            push(31);
        }
        if self.gives_check(pos, m) {
            push(13);
        }
        f
    }
}

/// Whether legal move `m` in `pos` gives check, from the bitboards: the moved piece
/// attacks the king from its new square, or a slider behind it now does.
pub fn gives_check(pos: &Chess, m: &Move) -> bool {
    use shakmaty::{Bitboard, Piece, attacks};
    let board = pos.board();
    let turn = pos.turn();
    let (Some(from), Some(king)) = (m.from(), board.king_of(!turn)) else {
        return false;
    };
    if m.is_castle() {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        return after.is_check();
    }
    let to = m.to();
    let mut occupied = (board.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
    if m.is_en_passant() {
        occupied ^= Bitboard::from_square(shakmaty::Square::from_coords(to.file(), from.rank()));
    }
    let piece = Piece {
        color: turn,
        role: m.promotion().unwrap_or(m.role()),
    };
    if attacks::attacks(to, piece, occupied).contains(king) {
        return true;
    }
    let ours = board.by_color(turn) & !Bitboard::from_square(from) & !Bitboard::from_square(to);
    let rooks = board.rooks_and_queens() & ours;
    let bishops = board.bishops_and_queens() & ours;
    (attacks::rook_attacks(king, occupied) & rooks).any()
        || (attacks::bishop_attacks(king, occupied) & bishops).any()
}

/// The features of legal move `m` in `pos` as bits (bit `i` = [`FEATURES`]`[i]`).
pub fn feature_mask(pos: &Chess, m: &Move) -> u32 {
    MoveContext::new(pos).feature_mask(pos, m)
}

/// The learned prior: one weight per feature and a global scale.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FeaturePrior {
    /// Feature names, to check the weights belong to this code's features.
    pub features: Vec<String>,
    pub weights: Vec<f32>,
    /// Multiplies the summed weights (features overlap, so less than 1 is typical).
    pub scale: f32,
    /// What the weights were counted on.
    #[serde(default)]
    pub trained_on: String,
    /// Opening book: how often each move was played in the positions of the first
    /// plies that the counted games reached often enough.
    #[serde(default)]
    pub book: Book,
    /// Weight of the book's log-ratio (0 turns it off).
    #[serde(default)]
    pub book_scale: f32,
}

/// Plies from the start that the book covers.
pub const BOOK_PLIES: usize = 16;
/// Games that must reach a position for the book to hold it.
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
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Counts the first [`BOOK_PLIES`] plies of `games`.
    fn count<'a>(games: impl IntoIterator<Item = &'a [Move]>) -> Book {
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
    pub fn log_ratio(&self, pos: &Chess, m: &Move) -> Option<f32> {
        self.entry(pos).map(|e| Book::ratio(e, m))
    }

    /// The book's moves in `pos` and their total, if it holds `pos`.
    fn entry(&self, pos: &Chess) -> Option<&(Vec<(u16, u32)>, u32)> {
        let ply =
            2 * (pos.fullmoves().get() as usize - 1) + usize::from(pos.turn() == Color::Black);
        if self.positions.is_empty() || ply >= BOOK_PLIES {
            return None;
        }
        self.positions.get(&position_key(pos))
    }

    fn ratio((moves, total): &(Vec<(u16, u32)>, u32), m: &Move) -> f32 {
        let key = pack(m);
        let played = moves.iter().find(|e| e.0 == key).map_or(0, |e| e.1);
        ((played as f32 + 1.0) / (*total as f32 + TYPICAL_MOVES) * TYPICAL_MOVES).ln()
    }
}

/// Failures loading a prior.
#[derive(Debug, thiserror::Error)]
pub enum PriorError {
    #[error("move prior: {0}")]
    Format(String),
}

impl FeaturePrior {
    /// Counts feature rates over games: `games` are move lists from the initial
    /// position. One pseudo-count keeps rare features finite and unseen ones at 0.
    pub fn train<'a>(
        games: impl IntoIterator<Item = &'a [Move]>,
        trained_on: &str,
    ) -> FeaturePrior {
        let n = FEATURES.len();
        let (mut played, mut legal) = (vec![0f64; n], vec![0f64; n]);
        let (mut positions, mut legal_total) = (0f64, 0f64);
        for game in games {
            let mut pos = Chess::default();
            for m in game {
                let moves = pos.legal_moves();
                positions += 1.0;
                legal_total += moves.len() as f64;
                let ctx = MoveContext::new(&pos);
                let count = |counts: &mut Vec<f64>, mv: &Move| {
                    let mut mask = ctx.feature_mask(&pos, mv);
                    while mask != 0 {
                        counts[mask.trailing_zeros() as usize] += 1.0;
                        mask &= mask - 1;
                    }
                };
                for lm in &moves {
                    count(&mut legal, lm);
                }
                count(&mut played, m);
                pos.play_unchecked(*m);
            }
        }
        let weights = (0..n)
            .map(|i| {
                // Played count against the count a uniformly random legal move
                // would have given, each with one pseudo-count: a feature never seen
                // weighs nothing.
                let expected = legal[i] * positions / legal_total.max(1.0);
                ((played[i] + 1.0) / (expected + 1.0)).ln() as f32
            })
            .collect();
        FeaturePrior {
            features: FEATURES.iter().map(|s| s.to_string()).collect(),
            weights,
            scale: 0.5,
            trained_on: trained_on.to_string(),
            book: Book::default(),
            book_scale: 0.0,
        }
    }

    /// Adds an opening book counted over the first [`BOOK_PLIES`] plies of `games`,
    /// weighed `book_scale` against the features.
    pub fn with_book<'a>(
        mut self,
        games: impl IntoIterator<Item = &'a [Move]>,
        book_scale: f32,
    ) -> FeaturePrior {
        self.book = Book::count(games);
        self.book_scale = book_scale;
        self
    }

    /// Reads a prior from its JSON.
    ///
    /// # Errors
    /// Malformed JSON, or weights for other features than this code's.
    pub fn from_json(text: &str) -> Result<FeaturePrior, PriorError> {
        let p: FeaturePrior =
            serde_json::from_str(text).map_err(|e| PriorError::Format(e.to_string()))?;
        if p.features
            .iter()
            .map(String::as_str)
            .ne(FEATURES.iter().copied())
            || p.weights.len() != FEATURES.len()
        {
            return Err(PriorError::Format(
                "weights are for another feature set".into(),
            ));
        }
        Ok(p)
    }

    /// Pretty JSON of the prior.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("prior serialises") + "\n"
    }

    /// The prior compiled into the binary (`models/prior.json`).
    pub fn shipped() -> Option<FeaturePrior> {
        FeaturePrior::from_json(include_str!("../../models/prior.json")).ok()
    }
}

impl FeaturePrior {
    /// Summed weights of the features of `m` in `pos`.
    fn feature_sum(&self, ctx: &MoveContext, pos: &Chess, m: &Move) -> f32 {
        let mut mask = ctx.feature_mask(pos, m);
        let mut sum = 0.0f32;
        while mask != 0 {
            sum += self.weights[mask.trailing_zeros() as usize];
            mask &= mask - 1;
        }
        sum
    }

    /// The prior from the feature sum and the position's book entry.
    fn weigh(&self, features: f32, entry: Option<&(Vec<(u16, u32)>, u32)>, m: &Move) -> f32 {
        let book = entry.map_or(0.0, |e| Book::ratio(e, m));
        self.scale * (features + self.book_scale * book)
    }
}

impl MovePrior for FeaturePrior {
    fn log_prior(&self, pos: &Chess, m: &Move) -> f32 {
        let sum = self.feature_sum(&MoveContext::new(pos), pos, m);
        let entry = (self.book_scale != 0.0)
            .then(|| self.book.entry(pos))
            .flatten();
        self.weigh(sum, entry, m)
    }

    fn log_priors(&self, pos: &Chess, moves: &[Move], out: &mut Vec<f32>) {
        if moves.is_empty() {
            return;
        }
        // The position's book entry is looked up once for all its moves.
        let entry = (self.book_scale != 0.0)
            .then(|| self.book.entry(pos))
            .flatten();
        let ctx = MoveContext::new(pos);
        out.extend(
            moves
                .iter()
                .map(|m| self.weigh(self.feature_sum(&ctx, pos, m), entry, m)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn play(sans: &[&str]) -> (Chess, Vec<Move>) {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for s in sans {
            let m = s.parse::<San>().unwrap().to_move(&pos).unwrap();
            moves.push(m);
            pos.play_unchecked(m);
        }
        (pos, moves)
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        // Random games, biased towards captures, checks and pawn pushes so that
        // discovered checks, en passant and promotions all occur.
        let mut rng = crate::notation::Rng::new(7);
        let (mut checks, mut moves_seen, mut ep, mut promos) = (0, 0, 0, 0);
        let mut discovered = 0;
        for _ in 0..300 {
            let mut pos = Chess::default();
            for _ in 0..160 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for m in &moves {
                    let mut after = pos.clone();
                    after.play_unchecked(*m);
                    assert_eq!(
                        MoveContext::new(&pos).gives_check(&pos, m),
                        after.is_check(),
                        "context: {m} in {}",
                        shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                    assert_eq!(
                        gives_check(&pos, m),
                        after.is_check(),
                        "{m} in {}",
                        shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                    checks += usize::from(after.is_check());
                    if after.is_check() && !m.is_castle() && !m.is_en_passant() {
                        // Discovered: the moved piece itself does not attack the king.
                        use shakmaty::{Bitboard, Piece, attacks};
                        let king = pos.board().king_of(!pos.turn()).unwrap();
                        let occupied = (pos.board().occupied()
                            ^ Bitboard::from_square(m.from().unwrap()))
                            | Bitboard::from_square(m.to());
                        let piece = Piece {
                            color: pos.turn(),
                            role: m.promotion().unwrap_or(m.role()),
                        };
                        discovered +=
                            usize::from(!attacks::attacks(m.to(), piece, occupied).contains(king));
                    }
                    ep += usize::from(m.is_en_passant());
                    promos += usize::from(m.is_promotion());
                    moves_seen += 1;
                }
                let pawnish: Vec<&Move> = moves
                    .iter()
                    .filter(|m| m.role() == Role::Pawn || m.is_capture())
                    .collect();
                let m = if !pawnish.is_empty() && rng.unit() < 0.6 {
                    *pawnish[rng.below(pawnish.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                pos.play_unchecked(m);
            }
        }
        assert!(moves_seen > 100_000 && checks > 1000 && ep > 10 && promos > 100);
        assert!(discovered > 100, "{discovered} discovered checks");
    }

    #[test]
    fn features_describe_the_move() {
        let (pos, _) = play(&["e4", "d5"]);
        let exd5 = "exd5".parse::<San>().unwrap().to_move(&pos).unwrap();
        let f = features(&pos, &exd5);
        for want in [
            "pawn",
            "capture",
            "takes-pawn",
            "pawn-takes",
            "opening-pawn",
        ] {
            let i = FEATURES.iter().position(|n| *n == want).unwrap();
            assert!(f.contains(&i), "{want} missing in {f:?}");
        }
        let (pos, _) = play(&["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]);
        let mate = "Qxf7".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert!(features(&pos, &mate).contains(&13), "Qxf7 gives check");
    }

    #[test]
    fn shipped_prior_loads_and_favours_castling_over_king_walks() {
        let prior = FeaturePrior::shipped().expect("models/prior.json matches FEATURES");
        let k = |name: &str| prior.weights[FEATURES.iter().position(|n| *n == name).unwrap()];
        assert!(prior.scale > 0.0);
        assert!(k("castle") > 0.0 && k("king-in-opening") < 0.0);
    }

    #[test]
    fn the_book_weighs_opening_moves_by_how_often_they_were_played() {
        // 10 games 1.e4 e5, 5 games 1.d4 d5: the book holds the start (15 games) and
        // the positions after 1.e4 (10); 1.d4 reaches only 5, below the threshold.
        let mut games: Vec<Vec<Move>> = (0..10).map(|_| play(&["e4", "e5"]).1).collect();
        games.extend((0..5).map(|_| play(&["d4", "d5"]).1));
        let prior = FeaturePrior::train(games.iter().map(Vec::as_slice), "test")
            .with_book(games.iter().map(Vec::as_slice), 1.0);
        assert_eq!(prior.book.len(), 2);
        let start = Chess::default();
        let m = |pos: &Chess, san: &str| san.parse::<San>().unwrap().to_move(pos).unwrap();
        let ratio = |pos: &Chess, san: &str| prior.book.log_ratio(pos, &m(pos, san)).unwrap();
        // (10 + 1) / (15 + 30) * 30 and (0 + 1) / (15 + 30) * 30.
        assert!((ratio(&start, "e4") - (11.0f32 / 45.0 * 30.0).ln()).abs() < 1e-5);
        assert!(ratio(&start, "e4") > ratio(&start, "d4"));
        assert!(ratio(&start, "d4") > ratio(&start, "a3"));
        let (after_d4, _) = play(&["d4"]);
        assert!(
            prior
                .book
                .log_ratio(&after_d4, &m(&after_d4, "d5"))
                .is_none()
        );
        // The book survives its JSON form.
        let back = FeaturePrior::from_json(&prior.to_json()).unwrap();
        assert_eq!(back, prior);
        // Off by default: a prior without book weight ignores it.
        let plain = FeaturePrior {
            book_scale: 0.0,
            ..prior.clone()
        };
        let (pos, _) = play(&[]);
        assert!(prior.log_prior(&pos, &m(&pos, "e4")) > plain.log_prior(&pos, &m(&pos, "e4")));
    }

    #[test]
    fn shipped_prior_holds_an_opening_book() {
        let prior = FeaturePrior::shipped().expect("models/prior.json loads");
        assert!(prior.book.len() > 1000 && prior.book_scale > 0.0);
        let start = Chess::default();
        let m = |san: &str| san.parse::<San>().unwrap().to_move(&start).unwrap();
        let r = |san: &str| {
            prior
                .book
                .log_ratio(&start, &m(san))
                .expect("the start is in the book")
        };
        assert!(r("e4") > 1.0 && r("d4") > 1.0 && r("a3") < 0.0);
    }

    #[test]
    fn learned_weights_prefer_what_players_play() {
        // Games where players always develop knights first and never move the king.
        let games: Vec<Vec<Move>> = (0..20)
            .map(|_| play(&["Nf3", "Nf6", "Nc3", "Nc6", "e4", "e5"]).1)
            .collect();
        let prior = FeaturePrior::train(games.iter().map(Vec::as_slice), "test");
        let k = |name: &str| prior.weights[FEATURES.iter().position(|n| *n == name).unwrap()];
        assert!(k("knight") > 0.0 && k("develops") > 0.0);
        assert!(k("rook") < 0.0, "rook moves were legal but never played");
        assert!(
            k("king").abs() < 1e-6,
            "never legal, never played: no weight"
        );
        let back = FeaturePrior::from_json(&prior.to_json()).unwrap();
        assert_eq!(back, prior);
        let (pos, _) = play(&[]);
        let nf3 = "Nf3".parse::<San>().unwrap().to_move(&pos).unwrap();
        let a3 = "a3".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert!(prior.log_prior(&pos, &nf3) > prior.log_prior(&pos, &a3));
    }
}
