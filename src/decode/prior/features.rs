//! Position and legal move -> the prior's binary features (piece, capture and what it
//! takes, check, castling, promotion, development, retreat, game phase), as indices or
//! a bit mask.

use shakmaty::{Chess, Color, Move, Position, Rank, Role};

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
#[cfg(any(test, feature = "internals"))]
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
#[cfg(any(test, feature = "internals"))]
pub fn feature_mask(pos: &Chess, m: &Move) -> u32 {
    MoveContext::new(pos).feature_mask(pos, m)
}
